# Conformance tests of kiln/interop.h (docs/interop.md): native handles,
# wrapped native memory and DLPack on each backend; two contexts used from
# two threads and copies between them.
kiln_conformance_test(interop SOURCES test_interop.c)
target_include_directories(test_interop SYSTEM PRIVATE ${KILN_DLPACK_INCLUDE_DIR})
kiln_conformance_test(interop_devices SOURCES test_multi_device.c)
