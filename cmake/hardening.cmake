# Hardening as Debian builds its packages (dpkg-buildflags with DEB_BUILD_MAINT_OPTIONS=hardening=+all):
# position-independent code and executables (ASLR for the tool too), full RELRO with immediate
# binding, stack protection and stack-clash probes, control-flow protection where the CPU family
# has it, checked format strings, and glibc's fortified functions. It applies to every target: the
# tool, the library and the Python extension. tests/install/hardening_test.sh checks the result
# with Debian's hardening-check.
option(ONNXQ_HARDEN "Build with Debian's hardening flags (PIE, full RELRO, stack protector, fortify...)" ON)
if(NOT ONNXQ_HARDEN)
  return()
endif()

include(CheckCXXCompilerFlag)
include(CheckPIESupported)
set(CMAKE_POSITION_INDEPENDENT_CODE ON)
check_pie_supported(LANGUAGES CXX)  # with policy CMP0083, executables then link with -pie

# Control-flow protection is per CPU family: CET's -fcf-protection on x86-64, pointer
# authentication and BTI on AArch64 (the cross build of scripts/test-arm).
set(ONNXQ_CONTROL_FLOW_FLAG "")
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  set(ONNXQ_CONTROL_FLOW_FLAG -fcf-protection)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "aarch64|arm64|ARM64")
  set(ONNXQ_CONTROL_FLOW_FLAG -mbranch-protection=standard)
endif()
# Each flag only where the compiler takes it (an older GCC or clang may lack one).
foreach(flag -fstack-protector-strong -fstack-clash-protection ${ONNXQ_CONTROL_FLOW_FLAG}
             -Wformat -Werror=format-security)
  string(MAKE_C_IDENTIFIER "ONNXQ_CXX_HAS${flag}" var)
  check_cxx_compiler_flag(${flag} ${var})
  if(${var})
    add_compile_options(${flag})
  endif()
endforeach()

# _FORTIFY_SOURCE needs optimization (every build type but Debug has it), and a sanitizer build
# leaves it out: the checked copies of memcpy and friends would bypass ASan's own interceptors.
if(NOT ONNXQ_SANITIZE AND NOT ONNXQ_FUZZ)
  add_compile_definitions($<$<NOT:$<CONFIG:Debug>>:_FORTIFY_SOURCE=2>)
endif()

add_link_options(LINKER:-z,relro LINKER:-z,now)
