"""Legacy TF1 thread settings, run through the shim on the installed TensorFlow.

    python examples/shim_demo.py

The settings below are what a TF1 program wrote; on TF2 eager a plain
tf.compat.v1.Session would not size the pools eager ops use. The demo prints
what the shim did, then the threads the process really has.
"""

import collections
import os

import tfcompat_threads as tct

config = tct.ConfigProto(intra_op_parallelism_threads=2, inter_op_parallelism_threads=1)
config.gpu_options.allow_growth = True
session = tct.Session(config=config)  # TF2 eager: applied process-wide, no second set of pools
tct.set_session(session)

import tensorflow as tf  # noqa: E402  (the legacy program imports TensorFlow where it likes)

x = tf.random.uniform((500, 500))
y = tf.matmul(x, x)
if tf.executing_eagerly():
    y.numpy()
else:  # TF 1.x: graph mode, the session runs the op (its pools are the configured ones)
    session.run(y)

state = tct.effective()
print(f"TensorFlow {state.tensorflow}, mode {state.mode}, {state.cpus} schedulable CPUs")
for name, pool in (("intra-op", state.intra_op), ("inter-op", state.inter_op)):
    print(f"  {name} pool: {pool.effective} threads (source: {pool.source})")
names = collections.Counter(
    open(f"/proc/self/task/{tid}/comm").read().strip() for tid in os.listdir("/proc/self/task")
)
print("  threads of this process by name:", dict(names))
