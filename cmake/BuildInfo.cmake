# Bakes the harness version and git revision into a small static library.
# The revision is re-read on every build (a cheap custom command), and the
# generated source is only rewritten when it changed, so an unchanged tree does
# not relink anything.
set(SPYRE_BUILD_INFO_CPP ${CMAKE_BINARY_DIR}/generated/build_info.cpp)
add_custom_target(spyre_build_info_gen
  COMMAND ${CMAKE_COMMAND}
    -DSOURCE_DIR=${CMAKE_SOURCE_DIR}
    -DOUTPUT=${SPYRE_BUILD_INFO_CPP}
    -DHARNESS_VERSION=${PROJECT_VERSION}
    -DEMU_VERSION=${SPYRE_EMU_VERSION}
    -P ${CMAKE_SOURCE_DIR}/cmake/WriteBuildInfo.cmake
  BYPRODUCTS ${SPYRE_BUILD_INFO_CPP}
  COMMENT "Reading git revision")
add_library(spyre_build_info STATIC ${SPYRE_BUILD_INFO_CPP})
add_dependencies(spyre_build_info spyre_build_info_gen)
target_include_directories(spyre_build_info PUBLIC ${CMAKE_SOURCE_DIR}/base/include)
