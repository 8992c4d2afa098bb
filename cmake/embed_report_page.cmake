# Writes OUTPUT, a C++ source defining onnxq::report_detail::kPageTemplate from INPUT (the report
# page, lib/src/report/page.html), with the SHA-256 of its one inline script filled into its
# Content-Security-Policy ({{ONNXQ_SCRIPT_HASH}}), so that the browser runs that script and no other.
# Run at build time: cmake -DINPUT=... -DOUTPUT=... -P embed_report_page.cmake
file(READ "${INPUT}" page)

# The script's text: what lies between "<script>" and the next "</script>", exactly as the browser hashes it.
string(FIND "${page}" "<script>" open)
string(FIND "${page}" "</script>" close REVERSE)
if(open EQUAL -1 OR close EQUAL -1)
  message(FATAL_ERROR "${INPUT}: no <script>...</script>")
endif()
math(EXPR first "${open} + 8")
math(EXPR length "${close} - ${first}")
string(SUBSTRING "${page}" ${first} ${length} script)
string(SHA256 hex "${script}")

# Hex to base64 (CMake has no base64): three bytes (six hex digits) to four characters.
set(alphabet "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
set(hash "")
string(LENGTH "${hex}" hex_length)  # 64: 10 groups of three bytes, then two bytes
set(at 0)
while(at LESS hex_length)
  math(EXPR left "${hex_length} - ${at}")
  if(left GREATER_EQUAL 6)
    string(SUBSTRING "${hex}" ${at} 6 group)
    set(chars 4)
  else()
    string(SUBSTRING "${hex}" ${at} 4 group)
    set(group "${group}00")
    set(chars 3)
  endif()
  math(EXPR bits "0x${group}")
  foreach(shift 18 12 6 0)
    if(chars GREATER 0)
      math(EXPR index "(${bits} >> ${shift}) & 63")
      string(SUBSTRING "${alphabet}" ${index} 1 c)
      string(APPEND hash "${c}")
      math(EXPR chars "${chars} - 1")
    endif()
  endforeach()
  math(EXPR at "${at} + 6")
endwhile()
string(APPEND hash "=")

string(FIND "${page}" "{{ONNXQ_SCRIPT_HASH}}" hash_at)
string(FIND "${page}" "{{ONNXQ_REPORT_DATA}}" data_at)
if(hash_at EQUAL -1 OR data_at EQUAL -1)
  message(FATAL_ERROR "${INPUT}: the page needs {{ONNXQ_SCRIPT_HASH}} and {{ONNXQ_REPORT_DATA}}")
endif()
string(REPLACE "{{ONNXQ_SCRIPT_HASH}}" "sha256-${hash}" page "${page}")
string(FIND "${page}" ")onnxq_page\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} holds the raw string's delimiter")
endif()
file(WRITE "${OUTPUT}.tmp"
     "// Generated from lib/src/report/page.html by cmake/embed_report_page.cmake: do not edit.\n"
     "#include \"report/page_template.hpp\"\n\n"
     "namespace onnxq::report_detail {\n"
     "const std::string_view kPageTemplate = R\"onnxq_page(${page})onnxq_page\";\n"
     "}  // namespace onnxq::report_detail\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
