"""Every public class and module has a docstring with an example, and the
examples run (doctest)."""

from __future__ import annotations

import doctest
import inspect

import pytest

import blockmodes
import blockmodes.files
import blockmodes.hazmat

PUBLIC = [getattr(blockmodes, n) for n in blockmodes.__all__ if n != "__version__"]
PUBLIC += [getattr(blockmodes.hazmat, n) for n in blockmodes.hazmat.__all__]
CLASSES = [c for c in PUBLIC if inspect.isclass(c) and not issubclass(c, Exception)]


@pytest.mark.parametrize("obj", CLASSES, ids=lambda c: c.__qualname__)
def test_class_docstring_example_runs(obj):
    doc = obj.__doc__ or ""
    assert "Example::" in doc and ">>>" in doc, obj
    finder = doctest.DocTestFinder(recurse=False)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in finder.find(obj, obj.__name__, globs={}):
        runner.run(test)
    assert runner.failures == 0


@pytest.mark.parametrize(
    "mod", [blockmodes, blockmodes.hazmat, blockmodes.files], ids=lambda m: m.__name__
)
def test_module_doctests(mod):
    res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
    assert res.failed == 0


def test_methods_documented():
    for cls in CLASSES:
        for name, member in vars(cls).items():
            if not name.startswith("_") and callable(member):
                assert (member.__doc__ or "").strip(), f"{cls.__name__}.{name}"


def _readme_blocks():
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    return re.findall(r"```python\n(.*?)```", text, re.S)


@pytest.mark.parametrize("i", range(len(_readme_blocks())))
def test_readme_examples_run(i):
    code = _readme_blocks()[i]
    if "dask" in code:
        pytest.skip("the Dask example is a script: test_dask.py runs it as one")
    exec(compile(code, f"README.md block {i}", "exec"), {})
