"""mindtorch.distributions: probability distributions with sample / rsample, log_prob, entropy, moments
and KL divergences, written with mindtorch ops (autograd and every backend), as torch.distributions."""
from . import constraints  # noqa: F401
from .distribution import Distribution  # noqa: F401
from .normal import Normal  # noqa: F401
from .uniform import Uniform  # noqa: F401
from .bernoulli import Bernoulli  # noqa: F401
from .categorical import Categorical, OneHotCategorical  # noqa: F401
from ._more import Exponential, Laplace, Gamma, Beta, Dirichlet, MultivariateNormal, Independent  # noqa: F401
from .families import *  # noqa: F401,F403,E402
from .families import __all__ as _families
from .transforms import *  # noqa: F401,F403,E402
from .transforms import __all__ as _transforms
from .transformed_distribution import TransformedDistribution  # noqa: F401
from .kl import kl_divergence, register_kl  # noqa: F401
from . import kl  # noqa: F401

__all__ = ["constraints", "Distribution", "Normal", "Uniform", "Bernoulli", "Categorical", "OneHotCategorical",
           "Exponential", "Laplace", "Gamma", "Beta", "Dirichlet", "MultivariateNormal", "Independent",
           "kl_divergence", "register_kl", "TransformedDistribution"] + _families + _transforms
