"""The runtime shim: ConfigProto options applied on whatever TensorFlow runs.

Its public names are re-exported by `tfcompat_threads` itself.
"""
