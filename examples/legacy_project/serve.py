"""Graph-mode inference: this session runs the graph, so its config stays."""
import tensorflow as tf

config = tf.ConfigProto(intra_op_parallelism_threads=4, inter_op_parallelism_threads=1)
graph = tf.Graph()
with graph.as_default():
    x = tf.placeholder(tf.float32, shape=(None, 4))
    y = tf.reduce_sum(x, axis=1)
with tf.Session(graph=graph, config=config) as sess:
    print(sess.run(y, feed_dict={x: [[1, 2, 3, 4]]}))
