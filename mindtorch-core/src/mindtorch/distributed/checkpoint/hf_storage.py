"""torch.distributed.checkpoint.hf_storage's names: sharded (DCP) checkpoints in the Hugging Face layout
are not supported by mindtorch (no DTensor sharding); constructing a reader or writer raises."""

__all__ = ["HuggingFaceStorageReader", "HuggingFaceStorageWriter"]

_NO_DCP = (
    "distributed checkpoints (torch.distributed.checkpoint) are not supported by mindtorch; save and load "
    "whole state dicts with mindtorch.save / mindtorch.load"
)


class HuggingFaceStorageReader:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError(_NO_DCP)


class HuggingFaceStorageWriter:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError(_NO_DCP)
