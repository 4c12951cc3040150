"""torch.nn.modules: each class is defined in the file where PyTorch defines it."""
from .module import *  # noqa: F401,F403
from .linear import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .activation import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .container import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .batchnorm import *  # noqa: F401,F403
from .instancenorm import *  # noqa: F401,F403
from .normalization import *  # noqa: F401,F403
from .dropout import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from .sparse import *  # noqa: F401,F403
from .rnn import *  # noqa: F401,F403
from .pixelshuffle import *  # noqa: F401,F403
from .upsampling import *  # noqa: F401,F403
from .distance import *  # noqa: F401,F403
from .fold import *  # noqa: F401,F403
from .adaptive import *  # noqa: F401,F403
from .transformer import *  # noqa: F401,F403
from .flatten import *  # noqa: F401,F403
from .channelshuffle import *  # noqa: F401,F403
from .lazy import *  # noqa: F401,F403
from .linear_cross_entropy_options import *  # noqa: F401,F403
from . import module, linear, conv, activation, loss, container, pooling  # noqa: E402
from . import batchnorm, instancenorm, normalization, dropout, padding, sparse, rnn  # noqa: E402
from . import pixelshuffle, upsampling, distance, fold, adaptive, transformer, flatten  # noqa: E402
from . import channelshuffle, lazy, linear_cross_entropy_options  # noqa: E402

# `from mindtorch.nn.modules import *` gives the classes, not the submodules (this utils would shadow nn.utils)
__all__ = [name for _file in (module, linear, conv, activation, loss, container, pooling,
                              batchnorm, instancenorm, normalization, dropout, padding, sparse, rnn,
                              pixelshuffle, upsampling, distance, fold, adaptive, transformer, flatten,
                              channelshuffle, lazy, linear_cross_entropy_options)
           for name in _file.__all__]
