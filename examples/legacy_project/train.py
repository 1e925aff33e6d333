"""A TF1-era Keras training script, as found in the wild."""
import argparse
import os

import tensorflow as tf
from tensorflow.keras import backend as K

from utils.session import get_session

parser = argparse.ArgumentParser()
parser.add_argument("--intra", type=int, default=os.cpu_count())
parser.add_argument("--inter", type=int, default=2)
args = parser.parse_args()

# Size the thread pools for the CPU box we train on.
config = tf.ConfigProto(
    intra_op_parallelism_threads=args.intra,  # threads inside one op
    inter_op_parallelism_threads=args.inter,
    allow_soft_placement=True,
)
config.gpu_options.allow_growth = True
sess = tf.Session(config=config)
K.set_session(sess)

model = tf.keras.Sequential([tf.keras.layers.Dense(10, input_shape=(4,))])
model.compile(optimizer="adam", loss="mse")


def evaluate():
    K.set_session(get_session(threads=1))
