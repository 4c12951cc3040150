"""torch.nn.modules: each class is defined in the file where PyTorch defines it."""

# isort: skip_file  (the star-imports run in PyTorch's order; a later file's names win)
from . import (
    activation,
    adaptive,
    batchnorm,
    channelshuffle,
    container,
    conv,
    distance,
    dropout,
    flatten,
    fold,
    instancenorm,
    lazy,
    linear,
    linear_cross_entropy_options,
    loss,
    module,
    normalization,
    padding,
    pixelshuffle,
    pooling,
    rnn,
    sparse,
    transformer,
    upsampling,
)
from .activation import *  # noqa: F403
from .adaptive import *  # noqa: F403
from .batchnorm import *  # noqa: F403
from .channelshuffle import *  # noqa: F403
from .container import *  # noqa: F403
from .conv import *  # noqa: F403
from .distance import *  # noqa: F403
from .dropout import *  # noqa: F403
from .flatten import *  # noqa: F403
from .fold import *  # noqa: F403
from .instancenorm import *  # noqa: F403
from .lazy import *  # noqa: F403
from .linear import *  # noqa: F403
from .linear_cross_entropy_options import *  # noqa: F403
from .loss import *  # noqa: F403
from .module import *  # noqa: F403
from .normalization import *  # noqa: F403
from .padding import *  # noqa: F403
from .pixelshuffle import *  # noqa: F403
from .pooling import *  # noqa: F403
from .rnn import *  # noqa: F403
from .sparse import *  # noqa: F403
from .transformer import *  # noqa: F403
from .upsampling import *  # noqa: F403

# `from mindtorch.nn.modules import *` gives the classes, not the submodules (this utils would shadow nn.utils)
__all__ = [
    name
    for _file in (
        module,
        linear,
        conv,
        activation,
        loss,
        container,
        pooling,
        batchnorm,
        instancenorm,
        normalization,
        dropout,
        padding,
        sparse,
        rnn,
        pixelshuffle,
        upsampling,
        distance,
        fold,
        adaptive,
        transformer,
        flatten,
        channelshuffle,
        lazy,
        linear_cross_entropy_options,
    )
    for name in _file.__all__
]
