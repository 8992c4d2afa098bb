# The Python tests: pytest, one ctest test per python/tests/test_*.py, against the package as built
# here (<build>/python first on PYTHONPATH), with Debian's pytest and numpy.
#
# In a build with ONNXQ_SANITIZE=address the extension needs the ASan runtime loaded before
# anything else, and python3 is not built with it: the tests run python3 with LD_PRELOAD of the
# compiler's libasan, so the binding and the library are checked in that stage too (the fuzz corpus
# replayed through the module under ASan is the point). libstdc++ is preloaded with it: ASan finds
# the real __cxa_throw when it starts, and python3 alone does not load libstdc++ (without it the
# first C++ exception stops the process in an ASan CHECK). Leak detection is off there: CPython and
# numpy keep their interned objects and caches to the end by design, which LeakSanitizer would
# report as leaks of every test; the C++ tests keep detecting leaks in the library itself.
set(ONNXQ_PYTHON_TEST_ENV
  "PYTHONPATH=${CMAKE_CURRENT_BINARY_DIR}"
  "PYTHONDONTWRITEBYTECODE=1"
  "ONNXQ_TESTDATA_DIR=${PROJECT_SOURCE_DIR}/testdata"
  "ONNXQ_BUILD_DIR=${CMAKE_BINARY_DIR}"
  "ONNXQ_PYTHON=${Python3_EXECUTABLE}")
set(ONNXQ_PYTHON_PRELOAD "")
if(ONNXQ_SANITIZE MATCHES "address")
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libasan.so
                  OUTPUT_VARIABLE ONNXQ_ASAN_RUNTIME OUTPUT_STRIP_TRAILING_WHITESPACE)
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libstdc++.so.6
                  OUTPUT_VARIABLE ONNXQ_STDCXX_RUNTIME OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(ONNXQ_PYTHON_PRELOAD "${ONNXQ_ASAN_RUNTIME}:${ONNXQ_STDCXX_RUNTIME}")
  list(APPEND ONNXQ_PYTHON_TEST_ENV "ASAN_OPTIONS=detect_leaks=0:halt_on_error=1")
endif()
list(APPEND ONNXQ_PYTHON_TEST_ENV "ONNXQ_PYTHON_PRELOAD=${ONNXQ_PYTHON_PRELOAD}")

# --capture=sys: what C code writes to stderr (a sanitizer's report before it stops the process)
# reaches ctest's output instead of pytest's capture file.
file(GLOB ONNXQ_PYTHON_TESTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_*.py)
foreach(test ${ONNXQ_PYTHON_TESTS})
  get_filename_component(name ${test} NAME_WE)
  add_test(NAME python.${name}
    COMMAND env LD_PRELOAD=${ONNXQ_PYTHON_PRELOAD} ${Python3_EXECUTABLE} -m pytest -q -p no:cacheprovider
            --capture=sys ${test})
  set_tests_properties(python.${name} PROPERTIES ENVIRONMENT "${ONNXQ_PYTHON_TEST_ENV}" TIMEOUT 600)
endforeach()

# pip installs the package into a new venv (reusing this build's extension) and python imports it
# there: packaging, the Release stage's alone (as in tests/CMakeLists.txt).
if(NOT ONNXQ_SANITIZE)
  add_test(NAME python.install COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tests/install.sh)
  set_tests_properties(python.install PROPERTIES ENVIRONMENT "${ONNXQ_PYTHON_TEST_ENV}" TIMEOUT 600)
endif()
