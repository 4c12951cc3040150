from .module import Module  # noqa: F401
from .container import Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict  # noqa: F401
from .linear import Identity, Linear, Bilinear  # noqa: F401
from .activation import *  # noqa: F401,F403
from .normalization import *  # noqa: F401,F403
from .conv import Conv1d, Conv2d  # noqa: F401
from .pooling import *  # noqa: F401,F403
from .misc import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .rnn import *  # noqa: F401,F403
from .transformer import *  # noqa: F401,F403
from .activation_more import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from .pixelshuffle import *  # noqa: F401,F403
from .channelshuffle import *  # noqa: F401,F403
from .upsampling import *  # noqa: F401,F403
from .distance import *  # noqa: F401,F403
from .instancenorm import *  # noqa: F401,F403
from .dropout import *  # noqa: F401,F403
from .flatten import *  # noqa: F401,F403
from .loss_more import *  # noqa: F401,F403
from .pooling_more import *  # noqa: F401,F403
from .conv_more import *  # noqa: F401,F403
from .fold import *  # noqa: F401,F403
from .sparse import *  # noqa: F401,F403
from .misc_more import *  # noqa: F401,F403
from .lazy import *  # noqa: F401,F403
from .batchnorm import *  # noqa: F401,F403
from .adaptive import *  # noqa: F401,F403
from .linear_cross_entropy_options import *  # noqa: F401,F403


def _pytorch_paths():
    """Classes defined in a *_more (or lazy) file also answer at PyTorch's module path, as in
    `from torch.nn.modules.conv import ConvTranspose2d`."""
    import sys
    homes = {
        "activation": "activation_more", "loss": ("loss_more", "CTCLoss", "LinearCrossEntropyLoss"),
        "pooling": "pooling_more", "conv": ("conv_more", "LazyConv1d", "LazyConv2d", "LazyConv3d",
                                            "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d"),
        "container": (None, "Container"), "normalization": ("instancenorm", "LocalResponseNorm", "CrossMapLRN2d"),
        "linear": (None, "LazyLinear"),
        "instancenorm": (None, "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d"),
    }
    here = sys.modules[__name__]
    for target, spec in homes.items():
        mod = sys.modules[f"{__name__}.{target}"]
        source, *names = (spec,) if isinstance(spec, str) else spec
        if source is not None:
            names += sys.modules[f"{__name__}.{source}"].__all__
        for name in names:
            if not hasattr(mod, name):
                setattr(mod, name, getattr(here, name))


_pytorch_paths()
