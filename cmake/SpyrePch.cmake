# spyre_use_aten_pch(target): precompile <ATen/ATen.h> for a target.
# Each target gets its own PCH: sharing one with REUSE_FROM breaks silently when
# two targets differ in flags (-fPIC against -fPIE), and one PCH costs about as
# much as a single translation unit that includes ATen.
function(spyre_use_aten_pch target)
  if(SPYRE_USE_PCH)
    target_precompile_headers(${target} PRIVATE <ATen/ATen.h> <string> <vector>)
  endif()
endfunction()
