"""A mixture of components from one distribution family."""

import mindtorch

from .categorical import Categorical
from .distribution import Distribution

__all__ = ["MixtureSameFamily"]


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
                raise ValueError(
                    f"`mixture_distribution.batch_shape` ({mdbs}) is not compatible with "
                    f"`component_distribution.batch_shape`({cdbs})"
                )
        km = mixture_distribution.logits.shape[-1]
        kc = component_distribution.batch_shape[-1]
        if km != kc:
            raise ValueError(
                f"`mixture_distribution component` ({km}) does not equal "
                f"`component_distribution.batch_shape[-1]` ({kc})"
            )
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
            idx = self._mixture_distribution.sample(sample_shape)  # (*sample, *batch)
            comp = self._component_distribution.sample(sample_shape)  # (*sample, *batch, K, *event)
            gather_dim = len(sample_shape) + len(self._batch_shape)
            index = idx.reshape(tuple(idx.shape) + (1,) * (1 + self._event_ndims))
            index = index.expand(tuple(idx.shape) + (1,) + tuple(self._event_shape))
            return comp.gather(gather_dim, index).squeeze(gather_dim)
