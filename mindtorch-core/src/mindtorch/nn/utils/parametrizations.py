"""Parametrizations built on nn.utils.parametrize: orthogonal, weight_norm and spectral_norm."""

import math

import mindtorch

from ..modules.module import Module
from . import parametrize
from .spectral_norm import default_dim, power_iteration, weight_as_matrix
from .weight_norm import norm_except_dim, weight_norm_value

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]

_ORTHOGONAL_MAPS = ("matrix_exp", "cayley", "householder")


def _mh(x):
    return x.transpose(-2, -1).conj()


def _matrix_exp(a):
    """exp(a) of square matrices by scaling and squaring a degree-18 Taylor polynomial (differentiable)."""
    with mindtorch.no_grad():
        norm = float(a.abs().sum(-2).amax()) if a.numel() else 0.0
    squarings = max(0, math.ceil(math.log2(norm))) if norm > 0.5 else 0
    b = a / (2.0**squarings)
    eye = mindtorch.eye(a.size(-1), dtype=a.dtype, device=a.device).expand_as(a)
    result = eye
    for k in range(18, 0, -1):  # Horner: I + b/1 (I + b/2 (I + ... b/18))
        result = eye + (b @ result) / k
    for _ in range(squarings):
        result = result @ result
    return result


def _householder_product(a, tau):
    """The first a.size(-1) columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^H, v_i being column i of a
    below the diagonal with a 1 on it (LAPACK's orgqr, differentiable)."""
    n, k = a.size(-2), a.size(-1)
    q = mindtorch.eye(n, dtype=a.dtype, device=a.device).expand(*a.shape[:-2], n, n)
    rows = mindtorch.arange(n, device=a.device)
    for i in range(k):
        below = (rows > i).to(a.dtype)
        v = (a[..., :, i] * below + (rows == i).to(a.dtype)).unsqueeze(-1)
        q = q - tau[..., i, None, None] * (q @ v) @ _mh(v)
    return q[..., :k]


def _geqrf(a):
    """Householder QR as LAPACK's geqrf stores it: R on and above the diagonal, the reflectors' vectors
    below it, and their scales tau."""
    a = a.clone()
    n, k = a.size(-2), a.size(-1)
    taus = []
    for j in range(k):
        alpha = a[..., j, j].clone()
        xnorm = a[..., j + 1 :, j].norm(dim=-1) if j + 1 < n else mindtorch.zeros_like(alpha.abs())
        beta = -mindtorch.sign(alpha) * mindtorch.sqrt(alpha * alpha + xnorm * xnorm)
        beta = mindtorch.where(beta == 0, -mindtorch.sqrt(alpha * alpha + xnorm * xnorm), beta)
        trivial = xnorm == 0
        tau = mindtorch.where(trivial, mindtorch.zeros_like(alpha), (beta - alpha) / beta)
        scale = mindtorch.where(trivial, mindtorch.ones_like(alpha), 1.0 / (alpha - beta))
        v = a[..., j + 1 :, j] * scale.unsqueeze(-1)
        a[..., j + 1 :, j] = v
        a[..., j, j] = mindtorch.where(trivial, alpha, beta)
        if j + 1 < k:  # apply H_j to the remaining columns
            full = mindtorch.cat([mindtorch.ones_like(alpha).unsqueeze(-1), v], dim=-1).unsqueeze(-1)
            rest = a[..., j:, j + 1 :]
            a[..., j:, j + 1 :] = rest - tau[..., None, None] * full @ (_mh(full) @ rest)
        taus.append(tau)
    return a, mindtorch.stack(taus, dim=-1)


def _is_orthogonal(q):
    n, k = q.size(-2), q.size(-1)
    eye = mindtorch.eye(k, dtype=q.dtype, device=q.device)
    return mindtorch.allclose(_mh(q) @ q, eye, atol=10.0 * n * mindtorch.finfo(q.dtype).eps)


def _make_orthogonal(a):
    """The Q of a = QR (a tall) with R's diagonal non-negative."""
    q, r = mindtorch.linalg.qr(a)
    signs = mindtorch.sign(r.diagonal(dim1=-2, dim2=-1))
    return q * mindtorch.where(signs == 0, mindtorch.ones_like(signs), signs).unsqueeze(-2)


class _Orthogonal(Module):
    """X -> an orthogonal matrix: exp or Cayley transform of X's skew-symmetric part, or the product of
    the Householder reflections X stores; with trivialization, times a fixed orthogonal `base`."""

    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        if weight.is_complex() and orthogonal_map == "householder":
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:
            X = X.transpose(-2, -1)
            n, k = k, n
        if self.orthogonal_map in ("matrix_exp", "cayley"):
            X = X.tril()
            if n != k:
                X = mindtorch.cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - _mh(X)
            if self.orthogonal_map == "matrix_exp":
                Q = _matrix_exp(A)
            else:
                eye = mindtorch.eye(n, dtype=A.dtype, device=A.device)
                Q = mindtorch.linalg.solve(eye - 0.5 * A, eye + 0.5 * A)
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = _householder_product(A, tau)
            Q = Q * X.diagonal(dim1=-2, dim2=-1).detach().int().unsqueeze(-2)  # signs: constants
        if "base" in self._buffers:
            Q = self.base @ Q
        return Q.transpose(-2, -1) if transposed else Q

    def right_inverse(self, Q):
        with mindtorch.no_grad():
            if Q.shape != self.shape:
                raise ValueError(
                    f"Expected a matrix or batch of matrices of shape {self.shape}. Got a tensor of shape {Q.shape}."
                )
            Q_init = Q
            n, k = Q.size(-2), Q.size(-1)
            transpose = n < k
            if transpose:
                Q = Q.transpose(-2, -1)
                n, k = k, n
            if "base" not in self._buffers:
                if self.orthogonal_map in ("matrix_exp", "cayley"):
                    raise NotImplementedError(
                        "It is not possible to assign to the matrix exponential or the Cayley "
                        "parametrizations when use_trivialization=False."
                    )
                A, tau = _geqrf(Q)
                diag = A.diagonal(dim1=-2, dim2=-1)
                # a diagonal of signs, flipped where the reflector is the identity (tau == 0)
                diag.copy_(mindtorch.where(tau == 0.0, -mindtorch.sign(diag), mindtorch.sign(diag)))
                return A.transpose(-2, -1) if transpose else A
            if n == k:
                Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
            else:
                N = mindtorch.randn(*(Q.size()[:-2] + (n, n - k)), dtype=Q.dtype, device=Q.device)
                Q = _make_orthogonal(mindtorch.cat([Q, N], dim=-1))
            self.base = Q
            neg_eye = mindtorch.zeros_like(Q_init)
            neg_eye.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
            return neg_eye


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Keep module.<name> (a matrix or batch of matrices) orthogonal, or unitary: its columns or rows,
    whichever are fewer, orthonormal."""
    weight = getattr(module, name, None)
    if not isinstance(weight, mindtorch.Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        square = weight.size(-2) == weight.size(-1)
        orthogonal_map = "matrix_exp" if square or weight.is_complex() else "householder"
    if orthogonal_map not in _ORTHOGONAL_MAPS:
        raise ValueError(
            f'orthogonal_map has to be one of "matrix_exp", "cayley", "householder". Got: {orthogonal_map}'
        )
    parametrize.register_parametrization(
        module, name, _Orthogonal(weight, orthogonal_map, use_trivialization=use_trivialization), unsafe=True
    )
    return module


class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return weight_norm_value(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """module.<name> parametrized as magnitude (original0) times direction (original1)."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def load_old_keys(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs):
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:  # a checkpoint of the hook-based weight_norm
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module._register_load_state_dict_pre_hook(load_old_keys)
    return module


class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError(
                f"Expected n_power_iterations to be positive, but got n_power_iterations={n_power_iterations}"
            )
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = weight_as_matrix(weight, self.dim)
            h, w = weight_mat.size()
            normalize = mindtorch.nn.functional.normalize
            self.register_buffer("_u", normalize(weight_mat.new_empty(h).normal_(0, 1), dim=0, eps=self.eps))
            self.register_buffer("_v", normalize(weight_mat.new_empty(w).normal_(0, 1), dim=0, eps=self.eps))
            # a good estimate from the start
            power_iteration(weight_mat.detach(), self._u, self._v, 15, self.eps)

    def forward(self, weight):
        if weight.ndim == 1:
            return mindtorch.nn.functional.normalize(weight, dim=0, eps=self.eps)
        weight_mat = weight_as_matrix(weight, self.dim)
        if self.training:
            power_iteration(weight_mat.detach(), self._u, self._v, self.n_power_iterations, self.eps)
        u, v = self._u.clone(), self._v.clone()
        sigma = mindtorch.vdot(u, mindtorch.mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """module.<name> divided by its spectral norm (power iteration on buffers, one step per training
    forward)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, mindtorch.Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    dim = default_dim(module) if dim is None else dim
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
