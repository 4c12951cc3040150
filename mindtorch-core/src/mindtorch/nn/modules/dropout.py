"""Dropout3d, AlphaDropout and FeatureAlphaDropout; the other dropouts (misc.py) re-exported at PyTorch's path."""
from ._lazy import F
from .misc import Dropout, Dropout1d, Dropout2d, _DropoutNd  # noqa: F401

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"]


class Dropout3d(_DropoutNd):
    def forward(self, input):
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    def forward(self, input):
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    def forward(self, input):
        return F.feature_alpha_dropout(input, self.p, self.training)
