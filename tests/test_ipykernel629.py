"""The kernel-level click tests again, on ipykernel 6.29 (the other kernel line in use), in a fresh venv."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.kernel
@pytest.mark.timeout(2400)  # a fresh environment and the kernel folder in it: its own steps have their own limits
def test_kernel_click_tests_pass_on_ipykernel_6_29(tmp_path):
    if os.environ.get("NOESIS_NB_SKIP_KERNEL_629"):
        pytest.skip("NOESIS_NB_SKIP_KERNEL_629 is set")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "NOESIS_NB_APPROVER", "NOESIS_RUNS_DIR"}}
    env.update(PATH=f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}", VIRTUAL_ENV=str(venv), PIP_DISABLE_PIP_VERSION_CHECK="1")
    subprocess.run(
        [
            python,
            "-m",
            "pip",
            "install",
            "-q",
            "ipykernel==6.29.5",
            "jupyter_client>=8",
            "pytest>=8.1",
            "pytest-timeout",
            "nest-asyncio",
            str(ROOT),
        ],
        env=env,
        check=True,
        timeout=900,
        cwd=tmp_path,
    )
    version = subprocess.run(
        [python, "-c", "import ipykernel; print(ipykernel.__version__)"], env=env, check=True, capture_output=True, text=True
    ).stdout.strip()
    assert version == "6.29.5"
    probe = (
        "from jupyter_client.manager import start_new_kernel\n"
        "km, kc = start_new_kernel(kernel_name='python3')\n"
        "reply = kc.execute_interactive('import ipykernel; print(ipykernel.__version__)', timeout=60,"
        " output_hook=lambda m: m['msg_type'] == 'stream' and print(m['content']['text'].strip()))\n"
        "km.shutdown_kernel(now=True)\n"
    )
    kernel_version = subprocess.run(
        [python, "-c", probe], env=env, cwd=tmp_path, check=True, capture_output=True, text=True, timeout=120
    ).stdout.strip()
    assert kernel_version == "6.29.5", "the kernels the tests start are the venv's"
    proc = subprocess.run(
        [
            python,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-o",
            "addopts=",
            "--rootdir",
            str(ROOT),
            str(ROOT / "tests" / "kernel"),
        ],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert " passed" in proc.stdout and " failed" not in proc.stdout
