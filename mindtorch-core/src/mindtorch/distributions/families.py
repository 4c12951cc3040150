"""More distributions: counts (Poisson, Binomial, Geometric, NegativeBinomial, Multinomial), heavy and
skewed tails (Cauchy, HalfCauchy, HalfNormal, LogNormal, StudentT, Gumbel, Weibull, Pareto, Chi2,
InverseGamma, FisherSnedecor, LogisticNormal), relaxed discrete ones for gradient estimators, and
MixtureSameFamily."""
import math

import mindtorch
from mindtorch.nn import functional as F

from . import constraints
from ._more import Gamma, Independent, _rsample_gamma
from .categorical import Categorical, OneHotCategorical
from .distribution import BinaryParams, Distribution, LocScale, _expand_into, broadcast_all
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform, ExpTransform, SigmoidTransform, StickBreakingTransform

__all__ = ["ExponentialFamily", "Poisson", "Binomial", "Geometric", "NegativeBinomial", "Multinomial", "Cauchy",
           "HalfCauchy", "HalfNormal", "LogNormal", "Chi2", "StudentT", "Gumbel", "Weibull", "Pareto",
           "InverseGamma", "FisherSnedecor", "LogisticNormal", "RelaxedBernoulli", "RelaxedOneHotCategorical",
           "OneHotCategoricalStraightThrough", "MixtureSameFamily"]

EULER = 0.57721566490153286061


class ExponentialFamily(Distribution):
    """Base class of the exponential-family distributions (a marker, as in torch.distributions)."""


def _as(value, like):
    return mindtorch.as_tensor(value, dtype=like.dtype, device=like.device)


# --- counts -------------------------------------------------------------------------------------------
class Poisson(ExponentialFamily):
    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        super().__init__(self.rate.shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_into(self, batch_shape, ("rate",))

    mean = property(lambda self: self.rate)
    mode = property(lambda self: self.rate.floor())
    variance = property(lambda self: self.rate)

    def sample(self, sample_shape=()):
        with mindtorch.no_grad():
            return mindtorch.poisson(self.rate.expand(tuple(self._extended_shape(sample_shape))))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, _as(value, self.rate))
        return mindtorch.special.xlogy(value, rate) - rate - mindtorch.lgamma(value + 1)


class Binomial(BinaryParams, Distribution):
    arg_constraints = {"total_count": constraints.nonnegative_integer, "probs": constraints.unit_interval,
                       "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        (count,) = self._set_binary(probs, logits, total_count)
        self.total_count = count.type_as(self._param)
        super().__init__(self._param.shape, validate_args=validate_args)

    @property
    def support(self):
        return constraints.integer_interval(0, self.total_count)


    def expand(self, batch_shape, _instance=None):
        new = type(self).__new__(type(self))
        new.total_count = self.total_count.expand(tuple(batch_shape))
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(tuple(batch_shape))
            new._param = new.probs
        else:
            new.logits = self.logits.expand(tuple(batch_shape))
            new._param = new.logits
        Distribution.__init__(new, batch_shape, validate_args=False)
        return new

    mean = property(lambda self: self.total_count * self.probs)
    variance = property(lambda self: self.total_count * self.probs * (1 - self.probs))

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    def sample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        with mindtorch.no_grad():
            return mindtorch.binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        n, k = self.total_count, _as(value, self.total_count)
        log_coef = mindtorch.lgamma(n + 1) - mindtorch.lgamma(k + 1) - mindtorch.lgamma(n - k + 1)
        # k log p + (n - k) log(1 - p), in logits: k * logits - n * log(1 + exp(logits)), stable at both ends
        logits = self.logits
        norm = n * mindtorch.clamp(logits, min=0) + n * mindtorch.log1p(mindtorch.exp(-logits.abs()))
        return log_coef + k * logits - norm

    def enumerate_support(self, expand=True):
        n = int(self.total_count.max())
        if not bool((self.total_count == n).all()):
            raise NotImplementedError("Inhomogeneous total count not supported by `enumerate_support`.")
        values = mindtorch.arange(1 + n, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values

    def entropy(self):
        values = self.enumerate_support(expand=False)
        logp = self.log_prob(values)
        return -(logp.exp() * logp).sum(0)


class Geometric(BinaryParams, Distribution):
    """Number of failures before the first success, with success probability probs."""
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._set_binary(probs, logits)
        super().__init__(self._param.shape, validate_args=validate_args)


    mean = property(lambda self: 1.0 / self.probs - 1.0)
    mode = property(lambda self: mindtorch.zeros_like(self.probs))
    variance = property(lambda self: (1.0 / self.probs - 1.0) / self.probs)

    def sample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        tiny = mindtorch.finfo(self.probs.dtype).tiny
        with mindtorch.no_grad():
            u = mindtorch.rand(shape, dtype=self.probs.dtype, device=self.probs.device).clamp(min=tiny)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(_as(value, self.probs), self.probs)
        # value * log(1 - p) + log p, with 0 * log(0) = 0 at p = 1
        fail = mindtorch.where((probs == 1) & (value == 0), mindtorch.zeros_like(probs), value * (-probs).log1p())
        return fail + probs.log()

    def entropy(self):
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none") / self.probs


class NegativeBinomial(BinaryParams, Distribution):
    """Number of successes before total_count failures, success probability probs."""
    arg_constraints = {"total_count": constraints.greater_than_eq(0), "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        (count,) = self._set_binary(probs, logits, total_count)
        self.total_count = count.type_as(self._param)
        super().__init__(self._param.shape, validate_args=validate_args)


    mean = property(lambda self: self.total_count * self.logits.exp())
    variance = property(lambda self: self.mean / mindtorch.sigmoid(-self.logits))

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    def sample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        with mindtorch.no_grad():
            rate = _rsample_gamma(self.total_count.expand(shape)) * self.logits.exp().expand(shape)
            return mindtorch.poisson(rate)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = _as(value, self.logits)
        unnorm = self.total_count * F.logsigmoid(-self.logits) + value * F.logsigmoid(self.logits)
        norm = -mindtorch.lgamma(self.total_count + value) + mindtorch.lgamma(1.0 + value) + \
            mindtorch.lgamma(self.total_count)
        norm = mindtorch.where(self.total_count + value == 0, mindtorch.zeros_like(norm), norm)
        return unnorm - norm


class Multinomial(Distribution):
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.independent(constraints.real, 1)}

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self._categorical.probs)
        batch = self._categorical.batch_shape
        super().__init__(batch, self._categorical.param_shape[-1:], validate_args=validate_args)

    @property
    def support(self):
        return constraints.multinomial(self.total_count)

    probs = property(lambda self: self._categorical.probs)
    logits = property(lambda self: self._categorical.logits)
    mean = property(lambda self: self.probs * self.total_count)
    variance = property(lambda self: self.total_count * self.probs * (1 - self.probs))

    def sample(self, sample_shape=()):
        shape = mindtorch.Size(tuple(sample_shape))
        with mindtorch.no_grad():
            draws = self._categorical.sample((self.total_count,) + tuple(shape))  # (n, *sample, *batch)
            counts = mindtorch.zeros(tuple(shape) + tuple(self._batch_shape) + tuple(self._event_shape),
                                     dtype=self.probs.dtype, device=self.probs.device)
            return counts.scatter_add_(-1, draws.movedim(0, -1), mindtorch.ones_like(draws.movedim(0, -1),
                                                                                      dtype=self.probs.dtype))

    def entropy(self):
        """n H(categorical) - log n! + sum_k E[log X_k!], X_k ~ Binomial(n, p_k) (by enumerating 0..n)."""
        n = self.total_count
        support = mindtorch.arange(n + 1, dtype=self.probs.dtype, device=self.probs.device)
        support = support.reshape((-1,) + (1,) * self.probs.dim())
        logp = self._binomial.log_prob(support)
        expected = (logp.exp() * mindtorch.lgamma(support + 1)).sum([0, -1])
        return n * self._categorical.entropy() - math.lgamma(n + 1) + expected

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits = self.logits.clone()
        logits = mindtorch.where((value == 0) & (logits == -math.inf), mindtorch.zeros_like(logits), logits)
        log_factorial_n = mindtorch.lgamma(value.sum(-1) + 1)
        log_factorial_xs = mindtorch.lgamma(value + 1).sum(-1)
        return log_factorial_n - log_factorial_xs + (logits * value).sum(-1)


# --- continuous ---------------------------------------------------------------------------------------
class Cauchy(LocScale):

    mean = property(lambda self: mindtorch.full_like(self.loc, math.nan))
    mode = property(lambda self: self.loc)
    variance = property(lambda self: mindtorch.full_like(self.loc, math.inf))

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        u = mindtorch.rand(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + self.scale * mindtorch.tan(math.pi * (u - 0.5))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -math.log(math.pi) - self.scale.log() - (((value - self.loc) / self.scale) ** 2).log1p()

    def cdf(self, value):
        return mindtorch.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value):
        return mindtorch.tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self):
        return math.log(4 * math.pi) + self.scale.log()


class _Folded(TransformedDistribution):
    """|X| for X symmetric about zero: twice the density on [0, inf), cdf 2F - 1, entropy less log 2."""
    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    scale = property(lambda self: self.base_dist.scale)
    mode = property(lambda self: mindtorch.zeros_like(self.scale))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = _as(value, self.scale)
        lp = self.base_dist.log_prob(value) + math.log(2)
        return mindtorch.where(value >= 0, lp, mindtorch.full_like(lp, -math.inf))

    def cdf(self, value):
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)


class HalfCauchy(_Folded):
    def __init__(self, scale, validate_args=None):
        super().__init__(Cauchy(0, scale, validate_args=False), AbsTransform(), validate_args=validate_args)

    mean = property(lambda self: mindtorch.full_like(self.scale, math.inf))
    variance = property(lambda self: mindtorch.full_like(self.scale, math.inf))


class HalfNormal(_Folded):
    def __init__(self, scale, validate_args=None):
        super().__init__(Normal(0, scale, validate_args=False), AbsTransform(), validate_args=validate_args)

    mean = property(lambda self: self.scale * math.sqrt(2 / math.pi))
    variance = property(lambda self: self.scale.pow(2) * (1 - 2 / math.pi))


class LogNormal(TransformedDistribution):
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        super().__init__(Normal(loc, scale, validate_args=validate_args), ExpTransform(),
                         validate_args=validate_args)

    loc = property(lambda self: self.base_dist.loc)
    scale = property(lambda self: self.base_dist.scale)
    mean = property(lambda self: (self.loc + self.scale.pow(2) / 2).exp())
    mode = property(lambda self: (self.loc - self.scale.square()).exp())
    variance = property(lambda self: (self.scale.pow(2).exp() - 1) * (2 * self.loc + self.scale.pow(2)).exp())

    def entropy(self):
        return self.base_dist.entropy() + self.loc


class LogisticNormal(TransformedDistribution):
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base = Normal(loc, scale, validate_args=validate_args)
        if not base.batch_shape:
            base = base.expand([1])
        super().__init__(Independent(base, 1), StickBreakingTransform(), validate_args=validate_args)

    loc = property(lambda self: self.base_dist.base_dist.loc)
    scale = property(lambda self: self.base_dist.base_dist.scale)


class Chi2(Gamma):
    arg_constraints = {"df": constraints.positive}

    def __init__(self, df, validate_args=None):
        super().__init__(0.5 * (df if isinstance(df, mindtorch.Tensor) else mindtorch.tensor(float(df))), 0.5,
                         validate_args=validate_args)

    df = property(lambda self: self.concentration * 2)


class StudentT(Distribution):
    arg_constraints = {"df": constraints.positive, "loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        super().__init__(self.df.shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_into(self, batch_shape, ("df", "loc", "scale"))

    @property
    def mean(self):
        m = self.loc.clone()
        return mindtorch.where(self.df <= 1, mindtorch.full_like(m, math.nan), m)

    mode = property(lambda self: self.loc)

    @property
    def variance(self):
        v = self.scale.pow(2) * self.df / (self.df - 2)
        v = mindtorch.where(self.df <= 2, mindtorch.full_like(v, math.inf), v)
        return mindtorch.where(self.df <= 1, mindtorch.full_like(v, math.nan), v)

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        x = mindtorch.randn(shape, dtype=self.df.dtype, device=self.df.device)
        z = 2 * _rsample_gamma(0.5 * self.df.expand(shape))  # chi-squared with df degrees of freedom
        return self.loc + self.scale * x * mindtorch.rsqrt(z / self.df)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        z = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi) + mindtorch.lgamma(0.5 * self.df)
             - mindtorch.lgamma(0.5 * (self.df + 1.0)))
        return -0.5 * (self.df + 1.0) * (y.pow(2) / self.df).log1p() - z

    def entropy(self):
        lbeta = mindtorch.lgamma(0.5 * self.df) + math.lgamma(0.5) - mindtorch.lgamma(0.5 * (self.df + 1))
        return (self.scale.log() + 0.5 * (self.df + 1) * (mindtorch.digamma(0.5 * (self.df + 1))
                                                          - mindtorch.digamma(0.5 * self.df))
                + 0.5 * self.df.log() + lbeta)


class Gumbel(LocScale):

    mean = property(lambda self: self.loc + self.scale * EULER)
    mode = property(lambda self: self.loc)
    stddev = property(lambda self: (math.pi / math.sqrt(6)) * self.scale)
    variance = property(lambda self: self.stddev.pow(2))

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        finfo = mindtorch.finfo(self.loc.dtype)
        u = mindtorch.rand(shape, dtype=self.loc.dtype, device=self.loc.device).clamp(min=finfo.tiny,
                                                                                     max=1 - finfo.eps)
        return self.loc - self.scale * (-u.log()).log()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        return -(z + (-z).exp()) - self.scale.log()

    def cdf(self, value):
        return (-(-(value - self.loc) / self.scale).exp()).exp()

    def icdf(self, value):
        return self.loc - self.scale * (-value.log()).log()

    def entropy(self):
        return self.scale.log() + (1 + EULER)


class Weibull(Distribution):
    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, scale, concentration, validate_args=None):
        self.scale, self.concentration = broadcast_all(scale, concentration)
        super().__init__(self.scale.shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_into(self, batch_shape, ("scale", "concentration"))

    mean = property(lambda self: self.scale * mindtorch.exp(mindtorch.lgamma(1 + 1 / self.concentration)))

    @property
    def mode(self):
        k = self.concentration
        return self.scale * ((k - 1) / k) ** (1 / k)

    @property
    def variance(self):
        k = self.concentration
        return self.scale.pow(2) * (mindtorch.exp(mindtorch.lgamma(1 + 2 / k))
                                    - mindtorch.exp(2 * mindtorch.lgamma(1 + 1 / k)))

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        u = mindtorch.rand(shape, dtype=self.scale.dtype, device=self.scale.device)
        return self.scale * (-(-u).log1p()).pow(1 / self.concentration)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        k, lam = self.concentration, self.scale
        z = value / lam
        return (k / lam).log() + (k - 1) * z.log() - z.pow(k)

    def cdf(self, value):
        return 1 - (-(value / self.scale).pow(self.concentration)).exp()

    def icdf(self, value):
        return self.scale * (-(-value).log1p()).pow(1 / self.concentration)

    def entropy(self):
        k = self.concentration
        return EULER * (1 - 1 / k) + (self.scale / k).log() + 1


class Pareto(Distribution):
    arg_constraints = {"scale": constraints.positive, "alpha": constraints.positive}
    has_rsample = True

    def __init__(self, scale, alpha, validate_args=None):
        self.scale, self.alpha = broadcast_all(scale, alpha)
        super().__init__(self.scale.shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_into(self, batch_shape, ("scale", "alpha"))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.greater_than_eq(self.scale)

    @property
    def mean(self):
        a = self.alpha.clamp(min=1)
        return a * self.scale / (a - 1)

    mode = property(lambda self: self.scale)

    @property
    def variance(self):
        a = self.alpha.clamp(min=2)
        return self.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2))

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        u = mindtorch.rand(shape, dtype=self.scale.dtype, device=self.scale.device)
        return self.scale * (-u).log1p().neg().div(self.alpha).exp()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.alpha.log() + self.alpha * self.scale.log() - (self.alpha + 1) * value.log()

    def cdf(self, value):
        return 1 - (self.scale / value).pow(self.alpha)

    def icdf(self, value):
        return self.scale * (-value).log1p().neg().div(self.alpha).exp()

    def entropy(self):
        return (self.scale / self.alpha).log() + (1 + 1 / self.alpha)


class InverseGamma(Distribution):
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        super().__init__(self.concentration.shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_into(self, batch_shape, ("concentration", "rate"))

    @property
    def mean(self):
        m = self.rate / (self.concentration - 1)
        return mindtorch.where(self.concentration <= 1, mindtorch.full_like(m, math.inf), m)

    mode = property(lambda self: self.rate / (self.concentration + 1))

    @property
    def variance(self):
        a = self.concentration
        v = self.rate.pow(2) / ((a - 1).pow(2) * (a - 2))
        return mindtorch.where(a <= 2, mindtorch.full_like(v, math.inf), v)

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        return self.rate.expand(shape) / _rsample_gamma(self.concentration.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        a, b = self.concentration, self.rate
        return a * b.log() - mindtorch.lgamma(a) - (a + 1) * value.log() - b / value

    def cdf(self, value):
        return mindtorch.special.gammaincc(self.concentration, self.rate / value)

    def entropy(self):
        a = self.concentration
        return a + self.rate.log() + mindtorch.lgamma(a) - (1 + a) * mindtorch.digamma(a)


class FisherSnedecor(Distribution):
    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1, df2, validate_args=None):
        self.df1, self.df2 = broadcast_all(df1, df2)
        super().__init__(self.df1.shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_into(self, batch_shape, ("df1", "df2"))

    @property
    def mean(self):
        d2 = self.df2.clone()
        d2 = mindtorch.where(d2 <= 2, mindtorch.full_like(d2, math.nan), d2)
        return d2 / (d2 - 2)

    @property
    def mode(self):
        m = (self.df1 - 2) / self.df1 * self.df2 / (self.df2 + 2)
        return mindtorch.where(self.df1 <= 2, mindtorch.full_like(m, math.nan), m)

    @property
    def variance(self):
        d1, d2 = self.df1, self.df2.clone()
        d2 = mindtorch.where(d2 <= 4, mindtorch.full_like(d2, math.nan), d2)
        return 2 * d2.pow(2) * (d1 + d2 - 2) / (d1 * (d2 - 2).pow(2) * (d2 - 4))

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        x1 = _rsample_gamma(0.5 * self.df1.expand(shape)) / self.df1
        x2 = _rsample_gamma(0.5 * self.df2.expand(shape)) / self.df2
        return x1 / x2

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        ct1, ct2 = self.df1 * 0.5, self.df2 * 0.5
        ct3 = self.df1 / self.df2
        t1 = (ct1 + ct2).lgamma() - ct1.lgamma() - ct2.lgamma()
        t2 = ct1 * ct3.log() + (ct1 - 1) * value.log()
        t3 = (ct1 + ct2) * (ct3 * value).log1p()
        return t1 + t2 - t3


# --- relaxed discrete distributions (gradient estimators) ----------------------------------------------
class _LogitRelaxedBernoulli(BinaryParams, Distribution):
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self.temperature = temperature
        self._set_binary(probs, logits)
        super().__init__(self._param.shape, validate_args=validate_args)


    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        finfo = mindtorch.finfo(self.logits.dtype)
        u = mindtorch.rand(shape, dtype=self.logits.dtype, device=self.logits.device).clamp(min=finfo.tiny,
                                                                                           max=1 - finfo.eps)
        return (u.log() - (-u).log1p() + self.logits) / self.temperature

    def log_prob(self, value):
        diff = self.logits - value * self.temperature
        return math.log(self.temperature) + diff - 2 * F.softplus(diff) if isinstance(self.temperature, float) \
            else self.temperature.log() + diff - 2 * F.softplus(diff)


class RelaxedBernoulli(TransformedDistribution):
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base = _LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base, SigmoidTransform(), validate_args=validate_args)

    temperature = property(lambda self: self.base_dist.temperature)
    logits = property(lambda self: self.base_dist.logits)
    probs = property(lambda self: self.base_dist.probs)


class _ExpRelaxedCategorical(Distribution):
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        self.temperature = temperature
        batch = self._categorical.batch_shape
        super().__init__(batch, self._categorical.param_shape[-1:], validate_args=validate_args)

    logits = property(lambda self: self._categorical.logits)
    probs = property(lambda self: self._categorical.probs)

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        finfo = mindtorch.finfo(self.logits.dtype)
        u = mindtorch.rand(shape, dtype=self.logits.dtype, device=self.logits.device).clamp(min=finfo.tiny,
                                                                                           max=1 - finfo.eps)
        scores = (self.logits - (-u.log()).log()) / self.temperature
        return scores - scores.logsumexp(dim=-1, keepdim=True)

    def log_prob(self, value):
        k = self._categorical._num_events
        t = self.temperature if isinstance(self.temperature, mindtorch.Tensor) else \
            mindtorch.tensor(float(self.temperature), dtype=self.logits.dtype)
        log_scale = mindtorch.lgamma(mindtorch.tensor(float(k), dtype=self.logits.dtype)) + (k - 1) * t.log()
        score = self.logits - value * t
        score = (score - score.logsumexp(dim=-1, keepdim=True)).sum(-1)
        return score + log_scale


class RelaxedOneHotCategorical(TransformedDistribution):
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base = _ExpRelaxedCategorical(temperature, probs, logits)
        from .transforms import IndependentTransform
        super().__init__(base, IndependentTransform(ExpTransform(), 1), validate_args=validate_args)

    temperature = property(lambda self: self.base_dist.temperature)
    logits = property(lambda self: self.base_dist.logits)
    probs = property(lambda self: self.base_dist.probs)


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """One-hot samples whose gradient flows to probs as if the sample were probs (straight-through)."""
    has_rsample = True

    def rsample(self, sample_shape=()):
        samples = self.sample(sample_shape)
        probs = self.probs
        return samples + (probs - probs.detach())


# --- mixtures -----------------------------------------------------------------------------------------
class MixtureSameFamily(Distribution):
    """A mixture with Categorical weights over the last batch dim of one component distribution."""
    arg_constraints = {}
    has_rsample = False

    def __init__(self, mixture_distribution, component_distribution, validate_args=None):
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(" The Mixture distribution needs to be an  instance of torch.distributions.Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution need to be an instance of torch.distributions.Distribution")
        mdbs = tuple(mixture_distribution.batch_shape)
        cdbs = tuple(component_distribution.batch_shape)[:-1]
        for a, b in zip(reversed(mdbs), reversed(cdbs)):
            if a != 1 and b != 1 and a != b:
                raise ValueError(f"`mixture_distribution.batch_shape` ({mdbs}) is not compatible with "
                                 f"`component_distribution.batch_shape`({cdbs})")
        km = mixture_distribution.logits.shape[-1]
        kc = component_distribution.batch_shape[-1]
        if km != kc:
            raise ValueError(f"`mixture_distribution component` ({km}) does not equal "
                             f"`component_distribution.batch_shape[-1]` ({kc})")
        self._num_component = km
        self._event_ndims = len(component_distribution.event_shape)
        super().__init__(cdbs, component_distribution.event_shape, validate_args=validate_args)

    mixture_distribution = property(lambda self: self._mixture_distribution)
    component_distribution = property(lambda self: self._component_distribution)

    @property
    def support(self):
        return self._component_distribution.support

    def _pad_weights(self, w):
        return w.reshape(tuple(w.shape) + (1,) * self._event_ndims)

    @property
    def mean(self):
        w = self._pad_weights(self._mixture_distribution.probs)
        return (w * self._component_distribution.mean).sum(-1 - self._event_ndims)

    @property
    def variance(self):
        w = self._pad_weights(self._mixture_distribution.probs)
        d = -1 - self._event_ndims
        mean_cond_var = (w * self._component_distribution.variance).sum(d)
        var_cond_mean = (w * (self._component_distribution.mean - self._pad(self.mean)).pow(2)).sum(d)
        return mean_cond_var + var_cond_mean

    def _pad(self, x):
        return x.unsqueeze(-1 - self._event_ndims)

    def log_prob(self, x):
        if self._validate_args:
            self._validate_sample(x)
        lp = self._component_distribution.log_prob(self._pad(x))
        mix = mindtorch.log_softmax(self._mixture_distribution.logits, dim=-1)
        return mindtorch.logsumexp(lp + mix, dim=-1)

    def cdf(self, x):
        cdf = self._component_distribution.cdf(self._pad(x))
        return (cdf * self._mixture_distribution.probs).sum(-1)

    def sample(self, sample_shape=()):
        with mindtorch.no_grad():
            sample_shape = tuple(sample_shape)
            idx = self._mixture_distribution.sample(sample_shape)           # (*sample, *batch)
            comp = self._component_distribution.sample(sample_shape)        # (*sample, *batch, K, *event)
            gather_dim = len(sample_shape) + len(self._batch_shape)
            index = idx.reshape(tuple(idx.shape) + (1,) * (1 + self._event_ndims))
            index = index.expand(tuple(idx.shape) + (1,) + tuple(self._event_shape))
            return comp.gather(gather_dim, index).squeeze(gather_dim)
