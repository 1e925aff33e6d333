import tensorflow as tf


def get_session(threads):
    """A session for Keras with `threads` per op."""
    config = tf.ConfigProto()
    config.intra_op_parallelism_threads = threads
    config.device_count["GPU"] = 0
    return tf.Session(config=config)
