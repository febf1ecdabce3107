#!/bin/sh
# Serves a copy of Fixtures/world with nginx on 127.0.0.1, the way a static tile server would:
# "{base}" in the .json files replaced by the real base URL, gzip (dynamic, and pre-gzipped .gz
# siblings via gzip_static), ETags, a JSON access log. Never touches /etc/nginx: everything lives
# under DIR, and nginx runs in the foreground (daemon off) as this script's own process (exec), so
# the caller stops it by signalling the pid it started.
#
# usage: nginx-world.sh --dir DIR --port PORT [--world PATH] [--workers N] [--pregzip] [--tls] [--die-with-parent]
#   DIR          created if needed; gets world/, nginx.conf, access.log, error.log, nginx.pid
#   --pregzip    also writes a .gz sibling (gzip -9) of every .pbf/.json file, served by gzip_static
#   --tls        HTTPS with HTTP/2 and a fresh self-signed certificate for 127.0.0.1 (DIR/cert.pem;
#                clients trust it as their CA file); the base URL becomes https://127.0.0.1:PORT
#   --die-with-parent  nginx gets SIGTERM when the launching process dies (no server outlives a
#                crashed test run; needs setpriv from util-linux)
# access.log: one JSON object per request: time, method, uri, status, if_none_match,
#   accept_encoding, content_encoding, connection, connection_requests, protocol, bytes.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
world="$here/../../Fixtures/world"
dir="" port="" workers=1 pregzip=0 tls=0 die_with_parent=0
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) dir=$2; shift 2 ;;
    --port) port=$2; shift 2 ;;
    --world) world=$2; shift 2 ;;
    --workers) workers=$2; shift 2 ;;
    --pregzip) pregzip=1; shift ;;
    --tls) tls=1; shift ;;
    --die-with-parent) die_with_parent=1; shift ;;
    --watch-pid) die_with_parent=1; shift 2 ;;  # the first version's flag; same effect
    *) echo "nginx-world.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$dir" ] && [ -n "$port" ] || { echo "usage: nginx-world.sh --dir DIR --port PORT [...]" >&2; exit 2; }

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
scheme=http listen="127.0.0.1:$port" tls_lines=""
if [ "$tls" = 1 ]; then
  scheme=https listen="127.0.0.1:$port ssl http2"
  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 \
    -addext subjectAltName=IP:127.0.0.1 -keyout "$dir/key.pem" -out "$dir/cert.pem" 2>/dev/null
  tls_lines="ssl_certificate $dir/cert.pem; ssl_certificate_key $dir/key.pem;"
fi
base="$scheme://127.0.0.1:$port"
rm -rf "$dir/world"
cp -R "$world" "$dir/world"
# Every JSON document that names the server (styles, TileJSON) gets its address.
grep -rlZ --include='*.json' '{base}' "$dir/world" | xargs -0 -r sed -i "s#{base}#$base#g"
if [ "$pregzip" = 1 ]; then
  find "$dir/world" -type f \( -name '*.pbf' -o -name '*.json' \) -exec gzip -9 -k -n -f {} +
fi

. "$here/nginx-conf.sh"
cat > "$dir/nginx.conf" <<EOF
$(nginx_head "$dir" "$workers" 4096)
http {
    types {
        application/json json;
        application/x-protobuf pbf;
        image/png png;
        image/jpeg jpg;
        image/webp webp;
    }
    default_type application/octet-stream;
    log_format packfs escape=json '{"time":\$msec,"method":"\$request_method","uri":"\$uri",'
        '"status":\$status,"if_none_match":"\$http_if_none_match",'
        '"accept_encoding":"\$http_accept_encoding","content_encoding":"\$sent_http_content_encoding",'
        '"connection":\$connection,"connection_requests":\$connection_requests,'
        '"protocol":"\$server_protocol","range":"\$http_range","if_match":"\$http_if_match","bytes":\$body_bytes_sent}';
    access_log $dir/access.log packfs;
$(nginx_temp_paths "$dir/tmp")
    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;
    keepalive_timeout 65;
    keepalive_requests 1000000;
    etag on;
    gzip on;
    gzip_types application/json application/x-protobuf application/vnd.mapbox-vector-tile application/octet-stream;
    gzip_min_length 0;
    gzip_static on;
    gzip_vary on;
    server {
        listen $listen;
        $tls_lines
        root $dir/world;
        location / { }
    }
}
EOF
mkdir -p "$dir/tmp"
: > "$dir/access.log"
nginx_exec "$dir" "$die_with_parent"
