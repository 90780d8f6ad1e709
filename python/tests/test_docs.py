"""The Python the documentation shows runs as written: the ``python`` blocks of the README's
"From Python and Scrapy" section and of the book's Python and Scrapy chapter, each
document's blocks in order in one interpreter, from the repository's root."""

import re
import subprocess
import sys

import pytest

from conftest import REPO


def python_blocks(text: str) -> list:
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)


def readme_section() -> str:
    text = (REPO / "README.md").read_text()
    start = text.index("## From Python and Scrapy")
    return text[start:text.index("\n## ", start + 1)]


@pytest.mark.parametrize("name, text", [
    ("README.md", readme_section()),
    ("docs/src/guide/python.md", (REPO / "docs/src/guide/python.md").read_text()),
])
def test_the_documented_python_runs(name, text):
    blocks = python_blocks(text)
    assert blocks, f"{name} shows no python block"
    done = subprocess.run([sys.executable, "-c", "\n".join(blocks)], cwd=REPO,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{name}:\n{done.stderr}"
