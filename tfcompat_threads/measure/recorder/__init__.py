"""The recorder of `tfcompat-threads run`. This folder goes first on the
PYTHONPATH of the command `run` starts: its `sitecustomize` loads
`_tfcompat_threads_recorder` into every Python process of that command, then
chains to the `sitecustomize` that would have loaded without it. Nothing here
is imported by the package itself."""
