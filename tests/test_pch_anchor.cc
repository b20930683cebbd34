// The translation unit of fabricpulse_test_pch, the target that builds the
// tests' shared precompiled header (tests/CMakeLists.txt, test_pch.h).
