"""mindtorch.onnx: present so programs that import it run; exporting is not supported."""


def export(*args, **kwargs):
    raise NotImplementedError(
        "mindtorch.onnx.export: exporting to ONNX is not supported by mindtorch "
        "(it has no graph capture); export the model with PyTorch instead"
    )


def is_in_onnx_export():
    return False


dynamo_export = export
