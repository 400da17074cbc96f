#!/usr/bin/env bash
# Install on this host the Debian packages of every runtime, compiler and library a bot may rely on
# (sandbox/image/packages.txt, generated from sandbox/runtimes.py): bwrap shows bots the host's /usr, and
# build-local.sh copies the bot image's files from these packages. Debian, as root; does nothing when all
# are installed. Exit status 0 when every package is installed afterwards, 1 (naming what is missing) otherwise.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
packages=$(sed 's/#.*//' "$here/packages.txt" | xargs)
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

missing=()
for package in $packages; do
  installed "$package" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "install-runtimes.sh: ${missing[*]} missing and cannot be installed here (needs root on Debian)" >&2
  exit 1
fi
echo "installing the bot runtimes and compilers: ${missing[*]}"
if ! (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      "${missing[@]}") >/dev/null 2>&1; then
  echo "install-runtimes.sh: apt-get could not install ${missing[*]}" >&2
  exit 1
fi
