# Rewrites jansson's document accessors into base/json.h's, one for one:
#   sed -E -i -f scripts/json-accessors.sed src/bir/load.c
# (the loader's walk is otherwise unchanged by the move to base/json).
s/\bjson_t\b/sba_json/g
s/\bjson_(object_get|array_size|array_get|integer_value|string_value|string_length|real_value|typeof|is_object|is_array|is_string|is_integer|is_real|is_true|is_false|is_boolean|is_null|array_foreach|object_foreach|dumpb|int_t|type)\b/sba_json_\1/g
s/\bJSON_(OBJECT|ARRAY|STRING|INTEGER|REAL|TRUE|FALSE|NULL|COMPACT|ENCODE_ANY)\b/SBA_JSON_\1/g
