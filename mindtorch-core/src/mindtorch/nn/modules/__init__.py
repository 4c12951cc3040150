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
from .upsampling import *  # noqa: F401,F403
from .distance import *  # noqa: F401,F403
from .instancenorm import *  # noqa: F401,F403
from .dropout_more import *  # noqa: F401,F403
from .loss_more import *  # noqa: F401,F403
from .pooling_more import *  # noqa: F401,F403
from .conv_more import *  # noqa: F401,F403
from .fold import *  # noqa: F401,F403
from .sparse import *  # noqa: F401,F403
from .misc_more import *  # noqa: F401,F403
from .lazy import *  # noqa: F401,F403
