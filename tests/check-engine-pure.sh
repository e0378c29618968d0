# The engine is pure: its library must not call anything that does I/O,
# reads the environment, exits, or keeps global state. Fails listing the
# offending symbols. Usage: check-engine-pure.sh LIBRARY.a [NAME]
# (NAME says which library in the messages: engine, or util below it).
set -u
lib=$1
name=${2:-engine}
bad='^(open|openat|read|write|pread|pwrite|close|fopen|fdopen|fread|fwrite|fclose|printf|fprintf|vfprintf|puts|fputs|putchar|perror|getenv|secure_getenv|exit|_exit|abort|system|popen|socket|mkdir|rmdir|unlink|stat|fstat|lstat|syslog|time|clock_gettime|rand|srand)$'
undef=$(nm -u --format=posix "$lib" | awk '{print $1}' | sed 's/@.*//' | sort -u)
found=$(echo "$undef" | grep -E "$bad")
# Global state: writable data symbols defined by the engine (D, B, C types).
globals=$(nm --format=posix --defined-only "$lib" 2>/dev/null | awk '$2 ~ /^[DBC]$/ {print $1}')
status=0
if [ -n "$found" ]; then
	echo "not ok - $name calls I/O or process functions:"; echo "$found" | sed 's/^/  /'
	status=1
else
	echo "ok - $name calls no I/O, environment or exit functions ($(echo "$undef" | wc -l) imports checked)"
fi
if [ -n "$globals" ]; then
	echo "not ok - $name defines writable globals:"; echo "$globals" | sed 's/^/  /'
	status=1
else
	echo "ok - $name defines no writable global state"
fi
exit $status
