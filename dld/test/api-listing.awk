# busctl introspect's table of one interface as api-listing.py prints the
# XML: "method NAME IN OUT", "property NAME TYPE", "signal NAME SIG", sorted
# by the caller.
$1 ~ /^\./ {
	name = substr($1, 2)
	if ($2 == "method")
		print "method", name, $3, $4
	else if ($2 == "property")
		print "property", name, $3
	else if ($2 == "signal")
		print "signal", name, $3
}
