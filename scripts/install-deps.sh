#!/bin/sh
# Installs, with apt-get, the Debian packages lnbench needs that are missing. Idempotent and
# silent when nothing is missing; `make` runs it before building.
set -e

# package:file-that-shows-it-is-installed (the package may name an architecture: libmpfr-dev:arm64)
needs="
libmpfr-dev:/usr/include/mpfr.h
libcmocka-dev:/usr/include/cmocka.h
libbenchmark-dev:/usr/include/benchmark/benchmark.h
libjansson-dev:/usr/include/jansson.h
libdnnl-dev:/usr/include/oneapi/dnnl/dnnl.h
gnuplot-nox:/usr/bin/gnuplot
g++:/usr/bin/g++
pkg-config:/usr/bin/pkg-config
"
# Opt-in peers (LNBENCH_PEERS, from `make PEERS=...`, comma-separated): libtorch-dev pulls in
# ~160 packages (~110 s here), too much for every fresh `make bench` (docs/peers.md).
for p in $(echo "${LNBENCH_PEERS:-}" | tr , ' '); do
    case "$p" in
    torch) needs="$needs libtorch-dev:/usr/include/ATen/native/layer_norm.h" ;;
    *) echo "install-deps: unknown peer '$p' in PEERS (known: torch)" >&2; exit 1 ;;
    esac
done
# A cross build for aarch64 (make ARCH=aarch64, LNBENCH_CROSS=aarch64-linux-gnu-): the cross
# toolchain, qemu-user to run what it builds, and the arm64 libraries through Debian's multiarch.
arm64=/usr/lib/aarch64-linux-gnu
[ "$LNBENCH_CROSS" = aarch64-linux-gnu- ] && needs="$needs
gcc-aarch64-linux-gnu:/usr/bin/aarch64-linux-gnu-gcc g++-aarch64-linux-gnu:/usr/bin/aarch64-linux-gnu-g++
qemu-user:/usr/bin/qemu-aarch64 libmpfr-dev:arm64:$arm64/libmpfr.so libgmp-dev:arm64:$arm64/libgmp.so
libbenchmark-dev:arm64:$arm64/libbenchmark.so libcmocka-dev:arm64:$arm64/libcmocka.so
libjansson-dev:arm64:$arm64/libjansson.so"
[ "$LNBENCH_FORMAT_DEPS" = 1 ] && needs="$needs clang-format-14:/usr/bin/clang-format-14"
[ "$LNBENCH_FUZZ_DEPS" = 1 ] && needs="$needs clang:/usr/bin/clang libclang-rt-14-dev:/usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a"

missing=""
for n in $needs; do
    [ -e "${n##*:}" ] || missing="$missing ${n%:*}"
done
[ -z "$missing" ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-deps: missing packages:$missing; this is not a Debian system, install them by hand" >&2
    exit 1
fi
if [ "$(id -u)" != 0 ]; then
    echo "install-deps: missing packages:$missing; run as root (sudo make ...) or install them with apt-get" >&2
    exit 1
fi
echo "install-deps: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
case "$missing" in
*:arm64*) dpkg --print-foreign-architectures | grep -qx arm64 || dpkg --add-architecture arm64 ;;
esac
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends $missing >/dev/null
