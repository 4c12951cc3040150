"""Dropout3d, AlphaDropout and FeatureAlphaDropout."""
from ._lazy import F
from .misc import _DropoutNd

__all__ = ["Dropout3d", "AlphaDropout", "FeatureAlphaDropout"]


class Dropout3d(_DropoutNd):
    def forward(self, input):
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    def forward(self, input):
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    def forward(self, input):
        return F.feature_alpha_dropout(input, self.p, self.training)
