"""spectral_norm (hook-based): module.<name> divided by its largest singular value, estimated by power
iteration on vectors kept as buffers <name>_u and <name>_v; the raw weight is <name>_orig."""

import mindtorch

from ..parameter import Parameter, UninitializedParameter
from ._weight_hooks import check_unregistered, remove_hook

__all__ = ["SpectralNorm", "spectral_norm", "remove_spectral_norm"]


def weight_as_matrix(weight, dim):
    """weight with `dim` moved first and the other dims flattened: the matrix whose spectrum is used."""
    if dim != 0:
        weight = weight.permute(dim, *[d for d in range(weight.dim()) if d != dim])
    return weight.reshape(weight.size(0), -1)


def power_iteration(weight_mat, u, v, n, eps):
    """n steps of power iteration, updating u and v (unit vectors) in place, without recording grad."""
    normalize = mindtorch.nn.functional.normalize
    with mindtorch.no_grad():
        for _ in range(n):
            v.copy_(normalize(mindtorch.mv(weight_mat.t().conj(), u), dim=0, eps=eps))
            u.copy_(normalize(mindtorch.mv(weight_mat, v), dim=0, eps=eps))


def default_dim(module):
    """The output-channel dim: 1 for transposed convolutions, else 0."""
    nn = mindtorch.nn
    return 1 if isinstance(module, (nn.ConvTranspose1d, nn.ConvTranspose2d, nn.ConvTranspose3d)) else 0


class SpectralNorm:
    """The forward pre-hook setting module.<name> = <name>_orig / sigma (power iteration in training)."""

    _version = 1

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError(
                f"Expected n_power_iterations to be positive, but got n_power_iterations={n_power_iterations}"
            )
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        return weight_as_matrix(weight, self.dim)

    def compute_weight(self, module, do_power_iteration):
        weight = getattr(module, self.name + "_orig")
        u, v = getattr(module, self.name + "_u"), getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            power_iteration(weight_mat, u, v, self.n_power_iterations, self.eps)
            # copies: the buffers change in place at the next iteration, after these were saved for backward
            u, v = u.clone(), v.clone()
        sigma = mindtorch.dot(u, mindtorch.mv(weight_mat, v))
        return weight / sigma

    def remove(self, module):
        with mindtorch.no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        check_unregistered(module, SpectralNorm, name, "spectral_norm")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        if isinstance(weight, UninitializedParameter):
            raise ValueError(
                "The module passed to `SpectralNorm` can't have uninitialized parameters. Make sure to "
                "run the dummy forward before applying spectral normalization"
            )
        normalize = mindtorch.nn.functional.normalize
        with mindtorch.no_grad():
            h, w = fn.reshape_weight_to_matrix(weight).size()
            u = normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=fn.eps)
            v = normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        setattr(module, fn.name, weight.data)
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        return fn


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divide module.<name> by its spectral norm before every forward."""
    SpectralNorm.apply(module, name, n_power_iterations, default_dim(module) if dim is None else dim, eps)
    return module


def remove_spectral_norm(module, name="weight"):
    """Undo spectral_norm: module.<name> is one parameter again, holding the normalised weight."""
    return remove_hook(module, SpectralNorm, name, "spectral_norm")
