#!/bin/sh
# Serves a directory as it is (no copy) with nginx on 127.0.0.1, as any static web server would
# serve a `packfs export DB NAME DIR/`: gzip for JSON and tiles, a JSON access log. Never touches
# /etc/nginx; nginx runs in the foreground as this script's own process (exec), and gets SIGTERM
# when the process that launched it dies.
#
# usage: serve-directory.sh --root DIR --state STATE --port PORT [--alias PREFIX DIRECTORY]
#   STATE  created if needed; gets nginx.conf, access.log, error.log, nginx.pid
#   --alias  also serves DIRECTORY (a PackFS mountpoint) under PREFIX (e.g. /packfs), with the
#            location block docs/web.md shows: the page at PREFIX/, content types, and the CORS
#            header a map page on another origin needs.
# access.log: one JSON object per request: time, method, uri (as requested, still encoded),
#   status, bytes, content_type.
set -eu

root="" state="" port="" alias_prefix="" alias_dir=""
while [ $# -gt 0 ]; do
  case "$1" in
    --root) root=$2; shift 2 ;;
    --state) state=$2; shift 2 ;;
    --port) port=$2; shift 2 ;;
    --alias) alias_prefix=$2; alias_dir=$3; shift 3 ;;
    *) echo "serve-directory.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$root" ] && [ -n "$state" ] && [ -n "$port" ] || {
  echo "usage: serve-directory.sh --root DIR --state STATE --port PORT" >&2; exit 2; }

mkdir -p "$state/tmp"
state=$(cd "$state" && pwd)
root=$(cd "$root" && pwd)
# The content types of the server and of docs/web.md's location block (a location's own `types`
# replaces the inherited ones, so the block names them again).
mime_types="text/html html; text/css css; application/javascript js; text/plain txt;
        application/json json; application/geo+json geojson; application/x-protobuf pbf;
        image/png png; image/jpeg jpg; image/webp webp;"
alias_block=""
if [ -n "$alias_prefix" ]; then
  alias_block="location $alias_prefix/ {
            alias $alias_dir/;
            index index.html;
            types { $mime_types }
            default_type application/octet-stream;
            add_header Access-Control-Allow-Origin * always;
            gzip on;
            gzip_types application/json application/geo+json application/x-protobuf application/javascript text/css;
        }"
fi
. "$(dirname "$0")/../servers/nginx-conf.sh"
cat > "$state/nginx.conf" <<CONF
$(nginx_head "$state" 1 1024)
http {
    types { $mime_types }
    default_type application/octet-stream;
    log_format export escape=json '{"time":\$msec,"method":"\$request_method","uri":"\$request_uri",'
        '"status":\$status,"bytes":\$body_bytes_sent,"content_type":"\$sent_http_content_type"}';
    access_log $state/access.log export;
$(nginx_temp_paths "$state/tmp")
    sendfile on;
    keepalive_timeout 65;
    gzip on;
    gzip_types application/json application/geo+json application/x-protobuf application/javascript text/css;
    server {
        listen 127.0.0.1:$port;
        root $root;
        location / { }
        $alias_block
    }
}
CONF
: > "$state/access.log"
nginx_exec "$state"
