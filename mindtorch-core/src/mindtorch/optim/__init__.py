"""mindtorch.optim: optimizers and learning-rate schedulers with PyTorch's math and state layout."""
from .optimizer import Optimizer  # noqa: F401
from ._algos import SGD, Adam, AdamW, RMSprop, Adagrad  # noqa: F401
from ._more import Adadelta, Adamax, NAdam, RAdam, ASGD, Rprop, Adafactor, Muon  # noqa: F401
from ._lbfgs import LBFGS  # noqa: F401
from . import lr_scheduler  # noqa: F401
from . import swa_utils  # noqa: F401
