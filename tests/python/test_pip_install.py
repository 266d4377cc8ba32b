"""`pip install .` from the repository into a throwaway venv, then `python -c "import raid;
print(raid.realized(...))"` from outside the tree. The venv sees the packages of the development venv
(.venv: numpy, pandas, cffi, scikit-build-core) through a .pth file, so that nothing is downloaded:
pip builds with --no-build-isolation --no-index, scikit-build-core drives the project's CMake build
(shared library and package only, pyproject.toml)."""
import os
import pathlib
import subprocess
import sysconfig
import venv

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_pip_install_then_import(tmp_path):
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    py = env_dir / "bin" / "python"
    site = subprocess.run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    (pathlib.Path(site) / "raid_dev_venv.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["CMAKE_BUILD_PARALLEL_LEVEL"] = "2"
    r = subprocess.run([py, "-m", "pip", "install", "--no-build-isolation", "--no-deps", "--no-index",
                        "--disable-pip-version-check", "-q", str(ROOT)], capture_output=True, text=True, env=env,
                       cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    installed = pathlib.Path(site) / "raid"
    assert (installed / "libraid.so").exists() and (installed / "_raid_ffi.py").exists()
    code = ("import raid, numpy as np; "
            "print(raid.__file__); "
            "print(raid.realized(np.array([0.01, -0.02, 0.005, 0.0]), np.array([0, 4]), device='cpu').to_csv(index=False))")
    r = subprocess.run([py, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    where, out = r.stdout.split("\n", 1)
    assert where.startswith(site)
    head, row = out.strip().splitlines()
    assert head == "n,rv,bpv,rs_neg,rs_pos,rq,tpq,medrv,jump_z,jump_p"
    assert row.startswith("4,0.000525")  # 1e-4 + 4e-4 + 2.5e-5
