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
