"""The Python blocks of docs/python.md run as written, each in a new
namespace, in a temporary directory."""
import pathlib
import re

import pytest

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "python.md"
BLOCKS = re.findall(r"^```python\n(.*?)^```", DOC.read_text(), re.S | re.M)


def test_the_page_has_python_blocks():
    assert len(BLOCKS) >= 3


@pytest.mark.parametrize("code", BLOCKS)
def test_block_runs(code, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    exec(compile(code, str(DOC), "exec"), {})
