package logstore

import (
	"cmp"
	"encoding/json"
	"sort"
	"strings"
)

// Rebuild turns a record a shipper loaded back into the line it was,
// cited by its stream: a line shipped whole (a JSON object or text in
// _msg) is its _msg; a line VictoriaLogs split into fields is a JSON
// object of them again, with what _msg_field and _time_field moved into
// _msg and _time put back under their names.
func (v *victoriaLogs) Rebuild(r Record) (source, line string) {
	source = "victorialogs:" + r["_stream"]
	msg := r["_msg"]
	if strings.HasPrefix(msg, missingMsg) {
		msg = ""
	}
	others := false
	for k := range r {
		if !strings.HasPrefix(k, "_") {
			others = true
			break
		}
	}
	if !others && v.msgField == "" || strings.HasPrefix(msg, "{") && json.Valid([]byte(msg)) {
		return source, msg
	}
	obj := map[string]any{}
	// In name order, so that "http" is placed before "http.status".
	names := make([]string, 0, len(r))
	for k := range r {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		val := r[k]
		switch k {
		case "_stream", "_stream_id":
		case "_msg":
			if msg != "" {
				setPath(obj, cmp.Or(v.msgField, "_msg"), val)
			}
		case "_time":
			if v.timeField != "" {
				setPath(obj, v.timeField, val)
			}
		default:
			setPath(obj, k, val)
		}
	}
	b, _ := json.Marshal(obj)
	return source, string(b)
}

// missingMsg is what VictoriaLogs stores as _msg for a line without one.
const missingMsg = "missing _msg field"
