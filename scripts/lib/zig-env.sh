# shellcheck shell=bash
# Sourced by the scripts that build for other systems with
# `cargo zigbuild`: scripts/mac-check and scripts/release.
#
# zig compiles the C some dependencies build (plain `cc` cannot target Apple systems, nor an old
# glibc) and links (through cargo-zigbuild), both from PyPI at pinned versions, in a virtual
# environment under target/. The Mac system libraries come with zig; the two frameworks the
# configuration watcher (notify's FSEvents backend) links, CoreFoundation and CoreServices, are
# not shipped outside Xcode, so the link gets text stubs naming the symbols it takes from them
# under their real install names: the executable loads the real frameworks on a Mac. A
# dependency that starts using another symbol fails the Apple links with "undefined symbol": add
# it to the list below.
#
# After sourcing: cargo-zigbuild, zig (python -m ziglang) and that venv's python3 come first on
# the PATH, and SDKROOT names the stubs.

zig_target_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/target"
zig_venv="$zig_target_dir/zig-venv"
if [ ! -x "$zig_venv/bin/cargo-zigbuild" ]; then
  python3 -m venv "$zig_venv"
  "$zig_venv/bin/pip" install --quiet --disable-pip-version-check ziglang==0.17.1 cargo-zigbuild==0.24.1
fi
export PATH="$zig_venv/bin:$PATH"

macos_sdk_stubs="$zig_target_dir/macos-sdk-stubs"
macos_framework_stub() {
  local name=$1
  shift
  local dir="$macos_sdk_stubs/System/Library/Frameworks/$name.framework"
  mkdir -p "$dir"
  {
    echo '--- !tapi-tbd'
    echo 'tbd-version: 4'
    echo 'targets: [ x86_64-macos, arm64-macos ]'
    echo "install-name: '/System/Library/Frameworks/$name.framework/Versions/A/$name'"
    echo 'exports:'
    echo '  - targets: [ x86_64-macos, arm64-macos ]'
    echo "    symbols: [ $(echo "$@" | sed 's/ /, /g') ]"
    echo '...'
  } >"$dir/$name.tbd"
}
macos_framework_stub CoreFoundation \
  _CFArrayAppendValue _CFArrayCreateMutable _CFArrayGetCount _CFArrayGetValueAtIndex \
  _CFArrayInsertValueAtIndex _CFRelease _CFRetain _CFRunLoopGetCurrent _CFRunLoopIsWaiting \
  _CFRunLoopRun _CFRunLoopStop _CFURLCopyAbsoluteURL _CFURLCopyFileSystemPath \
  _CFURLCopyLastPathComponent _CFURLCreateCopyAppendingPathComponent \
  _CFURLCreateCopyDeletingLastPathComponent _CFURLCreateFilePathURL \
  _CFURLCreateFileReferenceURL _CFURLCreateFromFileSystemRepresentation \
  _CFURLCreateFromFileSystemRepresentationRelativeToBase _CFURLResourceIsReachable \
  _kCFAllocatorDefault _kCFRunLoopDefaultMode _kCFTypeArrayCallBacks
macos_framework_stub CoreServices \
  _FSEventStreamCreate _FSEventStreamGetDeviceBeingWatched _FSEventStreamInvalidate \
  _FSEventStreamRelease _FSEventStreamScheduleWithRunLoop _FSEventStreamStart \
  _FSEventStreamStop _FSEventsGetCurrentEventId _FSEventsPurgeEventsForDeviceUpToEventId
export SDKROOT="$macos_sdk_stubs"
