"""STAND-IN for TensorFlow 1.15 — not the real TensorFlow 1.x.

TensorFlow 1.x needs Python <= 3.7 and cannot be installed here. This module
makes the installed TensorFlow 2 look like TF 1.15 to the code under test:
`import tensorflow` yields `tf.compat.v1` (TF1's public API: ConfigProto,
Session, keras.backend.set_session, config.threading ...) with
`__version__ = "1.15.5"`, in graph mode as TF1 runs. The thread pools it
starts are the real ones of the installed TensorFlow.

Use: put this folder first on PYTHONPATH and `import tf1_standin` before
anything imports tensorflow.
"""

import sys
import types

import tensorflow as _real_tf

STANDIN_VERSION = "1.15.5"

_v1 = _real_tf.compat.v1
_v1.disable_eager_execution()  # TF1 runs graphs

standin = types.ModuleType("tensorflow", __doc__)
for _name in dir(_v1):
    if not _name.startswith("__"):
        setattr(standin, _name, getattr(_v1, _name))
standin.__version__ = STANDIN_VERSION
standin.__file__ = __file__
standin.__path__ = list(getattr(_real_tf, "__path__", []))
standin.IS_STANDIN = True
sys.modules["tensorflow"] = standin
