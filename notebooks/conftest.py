"""nbval runs these notebooks unattended: approvals come from the ``auto`` policy, never a click."""

import os

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    # Set before nbval starts the notebook's kernel (the kernel inherits this environment).
    if str(item.fspath).endswith(".ipynb"):
        os.environ["NOESIS_NB_APPROVER"] = "auto"


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item):
    if str(item.fspath).endswith(".ipynb"):
        os.environ.pop("NOESIS_NB_APPROVER", None)
