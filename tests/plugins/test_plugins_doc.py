"""docs/PLUGINS.md's list of the ops that write their arguments is the op table's."""

from pathlib import Path

from mindtorch.ops.docs import mutation_section

DOC = Path(__file__).resolve().parents[2] / "docs" / "PLUGINS.md"
BEGIN, END = "<!-- begin: mutation_section -->\n", "<!-- end: mutation_section -->"


def test_the_list_of_writing_ops_is_current():
    text = DOC.read_text()
    body = text[text.index(BEGIN) + len(BEGIN) : text.index(END)]
    assert body == mutation_section(), (
        "docs/PLUGINS.md is out of date: replace the text between its mutation_section markers with "
        'the output of python -c "from mindtorch.ops.docs import mutation_section; print(mutation_section())"'
    )


def test_the_list_names_the_ops_that_write_more_than_self():
    section = mutation_section()
    for name in ("_foreach_adam_", "_foreach_sgd_", "_batch_norm", "copy_", "add_"):
        assert f"`{name}`" in section


OP_BEGIN, OP_END = "<!-- begin: op_reference -->\n", "<!-- end: op_reference -->"


def test_the_op_reference_is_current():
    from mindtorch.ops.docs import op_reference

    text = DOC.read_text()
    body = text[text.index(OP_BEGIN) + len(OP_BEGIN) : text.index(OP_END)]
    assert body == op_reference(), (
        "docs/PLUGINS.md is out of date: replace the text between its op_reference markers with "
        'the output of python -c "from mindtorch.ops.docs import op_reference; print(op_reference())"'
    )


def test_every_output_is_named_and_every_primitive_documented():
    from mindtorch.ops.docs import op_reference, summary
    from mindtorch.ops.registry import OPS

    unnamed = [q for q, op in OPS.items() if len(op.returns) > 1 and None in op.return_names]
    assert unnamed == [], unnamed
    reference = op_reference()
    for q, op in OPS.items():
        if q.startswith("_"):
            assert summary(op.name) and f"`{q}`" in reference, q
    for duty in ("(top, bottom, left, right)", "running_mean and running_var in place", "attn_mask is ignored"):
        assert duty in reference, duty
    assert "loss, total_weight, log_probs" in reference and "state_steps" in reference
