"""Builds onnxq's Python extension with the project's own CMake and packages python/onnxq around it.

`python3 -m pip install --no-build-isolation --no-index .` runs this with Debian's setuptools and
wheel; nothing is downloaded. It needs what `bash scripts/setup --python` installs (a C++20 compiler,
CMake, the library's -dev packages, pybind11).

ONNXQ_BUILD_DIR=DIR reuses a CMake build that is already configured with -DONNXQ_BUILD_PYTHON=ON
(scripts/build makes one in build/) and only brings its onnxq_python target up to date. Without it
a Release build of the library and the module alone is configured in build/python-wheel.
Either way setuptools' own files go to <that build>/setuptools, not into the source tree.
"""

import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
REUSED_BUILD = os.environ.get("ONNXQ_BUILD_DIR")
CMAKE_BUILD = Path(REUSED_BUILD).resolve() if REUSED_BUILD else ROOT / "build" / "python-wheel"
SETUPTOOLS_DIR = CMAKE_BUILD / "setuptools"


def project_version() -> str:
    match = re.search(r"project\(onnxq VERSION ([0-9.]+)", (ROOT / "CMakeLists.txt").read_text())
    if not match:
        raise RuntimeError("setup.py: no `project(onnxq VERSION x.y.z)` in CMakeLists.txt")
    return match.group(1)


class CMakeBuild(build_ext):
    """Builds the CMake target onnxq_python and copies the extension it makes into the wheel."""

    def build_extension(self, ext: Extension) -> None:
        if not REUSED_BUILD:
            configure = ["cmake", "-S", str(ROOT), "-B", str(CMAKE_BUILD), "-DCMAKE_BUILD_TYPE=Release",
                         "-DONNXQ_BUILD_PYTHON=ON", "-DONNXQ_BUILD_TESTS=OFF", "-DONNXQ_BUILD_BENCH=OFF",
                         f"-DPython3_EXECUTABLE={sys.executable}"]
            if shutil.which("ninja") and not (CMAKE_BUILD / "CMakeCache.txt").exists():
                configure += ["-G", "Ninja"]
            if shutil.which("ccache"):
                configure.append("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache")
            subprocess.run(configure, check=True)
        elif not (CMAKE_BUILD / "CMakeCache.txt").exists():
            raise RuntimeError(f"setup.py: ONNXQ_BUILD_DIR={REUSED_BUILD} is not a configured CMake build")
        subprocess.run(["cmake", "--build", str(CMAKE_BUILD), "--target", "onnxq_python",
                        "--parallel", str(os.cpu_count() or 1)], check=True)
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        built = CMAKE_BUILD / "python" / "onnxq" / ("_onnxq" + suffix)
        if not built.exists():
            raise RuntimeError(f"setup.py: {CMAKE_BUILD} made no {built.name}: was it configured for another "
                               f"Python? Configure it with -DPython3_EXECUTABLE={sys.executable}")
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, target)


SETUPTOOLS_DIR.mkdir(parents=True, exist_ok=True)
setup(
    version=project_version(),
    packages=["onnxq"],
    package_dir={"onnxq": "python/onnxq"},
    package_data={"onnxq": ["*.pyi", "py.typed"]},
    ext_modules=[Extension("onnxq._onnxq", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": str(SETUPTOOLS_DIR)}, "egg_info": {"egg_base": str(SETUPTOOLS_DIR)}},
    zip_safe=False,
)
