"""The Python blocks of docs/python.md and README.md run as written, each
in a new namespace, in a temporary directory."""
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BLOCKS = [(doc, code) for doc in ("docs/python.md", "README.md")
          for code in re.findall(r"^```python\n(.*?)^```",
                                 (ROOT / doc).read_text(), re.S | re.M)]


def test_the_docs_have_python_blocks():
    assert [doc for doc, _ in BLOCKS].count("docs/python.md") >= 3
    assert [doc for doc, _ in BLOCKS].count("README.md") >= 1


@pytest.mark.parametrize("doc,code", BLOCKS)
def test_block_runs(doc, code, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    exec(compile(code, str(ROOT / doc), "exec"), {})
