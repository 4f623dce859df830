// Code generated from pg_type of PostgreSQL 15 (see oid_test.go, which
// checks it against the reference server); DO NOT EDIT by hand without
// re-checking.

package pgtypes

import "github.com/bsdb/bsdb-pg/storage/schema"

// OIDs of built-in types (pg_type.oid). Stable across PostgreSQL versions.
const (
	OIDBool              uint32 = 16
	OIDBytea             uint32 = 17
	OIDChar              uint32 = 18
	OIDName              uint32 = 19
	OIDInt8              uint32 = 20
	OIDInt2              uint32 = 21
	OIDInt2Vector        uint32 = 22
	OIDInt4              uint32 = 23
	OIDRegProc           uint32 = 24
	OIDText              uint32 = 25
	OIDOID               uint32 = 26
	OIDTID               uint32 = 27
	OIDXID               uint32 = 28
	OIDCID               uint32 = 29
	OIDOIDVector         uint32 = 30
	OIDJSON              uint32 = 114
	OIDXML               uint32 = 142
	OIDXMLArray          uint32 = 143
	OIDJSONArray         uint32 = 199
	OIDXID8Array         uint32 = 271
	OIDPoint             uint32 = 600
	OIDCIDR              uint32 = 650
	OIDCIDRArray         uint32 = 651
	OIDFloat4            uint32 = 700
	OIDFloat8            uint32 = 701
	OIDUnknown           uint32 = 705
	OIDMoney             uint32 = 790
	OIDMoneyArray        uint32 = 791
	OIDMacaddr           uint32 = 829
	OIDInet              uint32 = 869
	OIDBoolArray         uint32 = 1000
	OIDByteaArray        uint32 = 1001
	OIDCharArray         uint32 = 1002
	OIDNameArray         uint32 = 1003
	OIDInt2Array         uint32 = 1005
	OIDInt2VectorArray   uint32 = 1006
	OIDInt4Array         uint32 = 1007
	OIDRegProcArray      uint32 = 1008
	OIDTextArray         uint32 = 1009
	OIDTIDArray          uint32 = 1010
	OIDXIDArray          uint32 = 1011
	OIDCIDArray          uint32 = 1012
	OIDOIDVectorArray    uint32 = 1013
	OIDBPCharArray       uint32 = 1014
	OIDVarcharArray      uint32 = 1015
	OIDInt8Array         uint32 = 1016
	OIDPointArray        uint32 = 1017
	OIDFloat4Array       uint32 = 1021
	OIDFloat8Array       uint32 = 1022
	OIDOIDArray          uint32 = 1028
	OIDMacaddrArray      uint32 = 1040
	OIDInetArray         uint32 = 1041
	OIDBPChar            uint32 = 1042
	OIDVarchar           uint32 = 1043
	OIDDate              uint32 = 1082
	OIDTime              uint32 = 1083
	OIDTimestamp         uint32 = 1114
	OIDTimestampArray    uint32 = 1115
	OIDDateArray         uint32 = 1182
	OIDTimeArray         uint32 = 1183
	OIDTimestampTZ       uint32 = 1184
	OIDTimestampTZArray  uint32 = 1185
	OIDInterval          uint32 = 1186
	OIDIntervalArray     uint32 = 1187
	OIDNumericArray      uint32 = 1231
	OIDCStringArray      uint32 = 1263
	OIDTimeTZ            uint32 = 1266
	OIDTimeTZArray       uint32 = 1270
	OIDBit               uint32 = 1560
	OIDBitArray          uint32 = 1561
	OIDVarbit            uint32 = 1562
	OIDVarbitArray       uint32 = 1563
	OIDNumeric           uint32 = 1700
	OIDRegProcedure      uint32 = 2202
	OIDRegOper           uint32 = 2203
	OIDRegClass          uint32 = 2205
	OIDRegType           uint32 = 2206
	OIDRegProcedureArray uint32 = 2207
	OIDRegOperArray      uint32 = 2208
	OIDRegClassArray     uint32 = 2210
	OIDRegTypeArray      uint32 = 2211
	OIDRecord            uint32 = 2249
	OIDCString           uint32 = 2275
	OIDAny               uint32 = 2276
	OIDAnyArray          uint32 = 2277
	OIDVoid              uint32 = 2278
	OIDTrigger           uint32 = 2279
	OIDAnyElement        uint32 = 2283
	OIDRecordArray       uint32 = 2287
	OIDUUID              uint32 = 2950
	OIDUUIDArray         uint32 = 2951
	OIDPgLSN             uint32 = 3220
	OIDPgLSNArray        uint32 = 3221
	OIDJSONB             uint32 = 3802
	OIDJSONBArray        uint32 = 3807
	OIDJSONPath          uint32 = 4072
	OIDJSONPathArray     uint32 = 4073
	OIDRegNamespace      uint32 = 4089
	OIDRegNamespaceArray uint32 = 4090
	OIDRegRole           uint32 = 4096
	OIDRegRoleArray      uint32 = 4097
	OIDXID8              uint32 = 5069
)

var builtinTypes = [...]TypeInfo{
	{OID: OIDBool, Name: "bool", SQLName: `boolean`, Len: 1, ByVal: true, Category: 'B', Type: 'b', ArrayOID: 1000, ElemOID: 0, Kind: schema.KindBool},
	{OID: OIDBytea, Name: "bytea", SQLName: `bytea`, Len: -1, ByVal: false, Category: 'U', Type: 'b', ArrayOID: 1001, ElemOID: 0, Kind: schema.KindBinary},
	{OID: OIDChar, Name: "char", SQLName: `"char"`, Len: 1, ByVal: true, Category: 'Z', Type: 'b', ArrayOID: 1002, ElemOID: 0, Kind: schema.KindString},
	{OID: OIDName, Name: "name", SQLName: `name`, Len: 64, ByVal: false, Category: 'S', Type: 'b', ArrayOID: 1003, ElemOID: 18, Kind: schema.KindString},
	{OID: OIDInt8, Name: "int8", SQLName: `bigint`, Len: 8, ByVal: true, Category: 'N', Type: 'b', ArrayOID: 1016, ElemOID: 0, Kind: schema.KindInt64},
	{OID: OIDInt2, Name: "int2", SQLName: `smallint`, Len: 2, ByVal: true, Category: 'N', Type: 'b', ArrayOID: 1005, ElemOID: 0, Kind: schema.KindInt16},
	{OID: OIDInt2Vector, Name: "int2vector", SQLName: `int2vector`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 1006, ElemOID: 21, Kind: schema.KindInvalid},
	{OID: OIDInt4, Name: "int4", SQLName: `integer`, Len: 4, ByVal: true, Category: 'N', Type: 'b', ArrayOID: 1007, ElemOID: 0, Kind: schema.KindInt32},
	{OID: OIDRegProc, Name: "regproc", SQLName: `regproc`, Len: 4, ByVal: true, Category: 'N', Type: 'b', ArrayOID: 1008, ElemOID: 0, Kind: schema.KindInvalid},
	{OID: OIDText, Name: "text", SQLName: `text`, Len: -1, ByVal: false, Category: 'S', Type: 'b', ArrayOID: 1009, ElemOID: 0, Kind: schema.KindString},
	{OID: OIDOID, Name: "oid", SQLName: `oid`, Len: 4, ByVal: true, Category: 'N', Type: 'b', ArrayOID: 1028, ElemOID: 0, Kind: schema.KindInt64},
	{OID: OIDTID, Name: "tid", SQLName: `tid`, Len: 6, ByVal: false, Category: 'U', Type: 'b', ArrayOID: 1010, ElemOID: 0, Kind: schema.KindInvalid},
	{OID: OIDXID, Name: "xid", SQLName: `xid`, Len: 4, ByVal: true, Category: 'U', Type: 'b', ArrayOID: 1011, ElemOID: 0, Kind: schema.KindInvalid},
	{OID: OIDCID, Name: "cid", SQLName: `cid`, Len: 4, ByVal: true, Category: 'U', Type: 'b', ArrayOID: 1012, ElemOID: 0, Kind: schema.KindInvalid},
	{OID: OIDOIDVector, Name: "oidvector", SQLName: `oidvector`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 1013, ElemOID: 26, Kind: schema.KindInvalid},
	{OID: OIDJSON, Name: "json", SQLName: `json`, Len: -1, ByVal: false, Category: 'U', Type: 'b', ArrayOID: 199, ElemOID: 0, Kind: schema.KindJSON},
	{OID: OIDXML, Name: "xml", SQLName: `xml`, Len: -1, ByVal: false, Category: 'U', Type: 'b', ArrayOID: 143, ElemOID: 0, Kind: schema.KindString},
	{OID: OIDXMLArray, Name: "_xml", SQLName: `xml[]`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 0, ElemOID: 142, Kind: schema.KindInvalid},
	{OID: OIDJSONArray, Name: "_json", SQLName: `json[]`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 0, ElemOID: 114, Kind: schema.KindInvalid},
	{OID: OIDXID8Array, Name: "_xid8", SQLName: `xid8[]`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 0, ElemOID: 5069, Kind: schema.KindInvalid},
	{OID: OIDPoint, Name: "point", SQLName: `point`, Len: 16, ByVal: false, Category: 'G', Type: 'b', ArrayOID: 1017, ElemOID: 701, Kind: schema.KindInvalid},
	{OID: OIDCIDR, Name: "cidr", SQLName: `cidr`, Len: -1, ByVal: false, Category: 'I', Type: 'b', ArrayOID: 651, ElemOID: 0, Kind: schema.KindInvalid},
	{OID: OIDCIDRArray, Name: "_cidr", SQLName: `cidr[]`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 0, ElemOID: 650, Kind: schema.KindInvalid},
	{OID: OIDFloat4, Name: "float4", SQLName: `real`, Len: 4, ByVal: true, Category: 'N', Type: 'b', ArrayOID: 1021, ElemOID: 0, Kind: schema.KindFloat32},
	{OID: OIDFloat8, Name: "float8", SQLName: `double precision`, Len: 8, ByVal: true, Category: 'N', Type: 'b', ArrayOID: 1022, ElemOID: 0, Kind: schema.KindFloat64},
	{OID: OIDUnknown, Name: "unknown", SQLName: `unknown`, Len: -2, ByVal: false, Category: 'X', Type: 'p', ArrayOID: 0, ElemOID: 0, Kind: schema.KindInvalid},
	{OID: OIDMoney, Name: "money", SQLName: `money`, Len: 8, ByVal: true, Category: 'N', Type: 'b', ArrayOID: 791, ElemOID: 0, Kind: schema.KindInvalid},
	{OID: OIDMoneyArray, Name: "_money", SQLName: `money[]`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 0, ElemOID: 790, Kind: schema.KindInvalid},
	{OID: OIDMacaddr, Name: "macaddr", SQLName: `macaddr`, Len: 6, ByVal: false, Category: 'U', Type: 'b', ArrayOID: 1040, ElemOID: 0, Kind: schema.KindInvalid},
	{OID: OIDInet, Name: "inet", SQLName: `inet`, Len: -1, ByVal: false, Category: 'I', Type: 'b', ArrayOID: 1041, ElemOID: 0, Kind: schema.KindInvalid},
	{OID: OIDBoolArray, Name: "_bool", SQLName: `boolean[]`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 0, ElemOID: 16, Kind: schema.KindInvalid},
	{OID: OIDByteaArray, Name: "_bytea", SQLName: `bytea[]`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 0, ElemOID: 17, Kind: schema.KindInvalid},
	{OID: OIDCharArray, Name: "_char", SQLName: `"char"[]`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 0, ElemOID: 18, Kind: schema.KindInvalid},
	{OID: OIDNameArray, Name: "_name", SQLName: `name[]`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 0, ElemOID: 19, Kind: schema.KindInvalid},
	{OID: OIDInt2Array, Name: "_int2", SQLName: `smallint[]`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 0, ElemOID: 21, Kind: schema.KindInvalid},
	{OID: OIDInt2VectorArray, Name: "_int2vector", SQLName: `int2vector[]`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 0, ElemOID: 22, Kind: schema.KindInvalid},
	{OID: OIDInt4Array, Name: "_int4", SQLName: `integer[]`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 0, ElemOID: 23, Kind: schema.KindInvalid},
	{OID: OIDRegProcArray, Name: "_regproc", SQLName: `regproc[]`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 0, ElemOID: 24, Kind: schema.KindInvalid},
	{OID: OIDTextArray, Name: "_text", SQLName: `text[]`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 0, ElemOID: 25, Kind: schema.KindInvalid},
	{OID: OIDTIDArray, Name: "_tid", SQLName: `tid[]`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 0, ElemOID: 27, Kind: schema.KindInvalid},
	{OID: OIDXIDArray, Name: "_xid", SQLName: `xid[]`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 0, ElemOID: 28, Kind: schema.KindInvalid},
	{OID: OIDCIDArray, Name: "_cid", SQLName: `cid[]`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 0, ElemOID: 29, Kind: schema.KindInvalid},
	{OID: OIDOIDVectorArray, Name: "_oidvector", SQLName: `oidvector[]`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 0, ElemOID: 30, Kind: schema.KindInvalid},
	{OID: OIDBPCharArray, Name: "_bpchar", SQLName: `character[]`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 0, ElemOID: 1042, Kind: schema.KindInvalid},
	{OID: OIDVarcharArray, Name: "_varchar", SQLName: `character varying[]`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 0, ElemOID: 1043, Kind: schema.KindInvalid},
	{OID: OIDInt8Array, Name: "_int8", SQLName: `bigint[]`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 0, ElemOID: 20, Kind: schema.KindInvalid},
	{OID: OIDPointArray, Name: "_point", SQLName: `point[]`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 0, ElemOID: 600, Kind: schema.KindInvalid},
	{OID: OIDFloat4Array, Name: "_float4", SQLName: `real[]`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 0, ElemOID: 700, Kind: schema.KindInvalid},
	{OID: OIDFloat8Array, Name: "_float8", SQLName: `double precision[]`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 0, ElemOID: 701, Kind: schema.KindInvalid},
	{OID: OIDOIDArray, Name: "_oid", SQLName: `oid[]`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 0, ElemOID: 26, Kind: schema.KindInvalid},
	{OID: OIDMacaddrArray, Name: "_macaddr", SQLName: `macaddr[]`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 0, ElemOID: 829, Kind: schema.KindInvalid},
	{OID: OIDInetArray, Name: "_inet", SQLName: `inet[]`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 0, ElemOID: 869, Kind: schema.KindInvalid},
	{OID: OIDBPChar, Name: "bpchar", SQLName: `character`, Len: -1, ByVal: false, Category: 'S', Type: 'b', ArrayOID: 1014, ElemOID: 0, Kind: schema.KindString},
	{OID: OIDVarchar, Name: "varchar", SQLName: `character varying`, Len: -1, ByVal: false, Category: 'S', Type: 'b', ArrayOID: 1015, ElemOID: 0, Kind: schema.KindString},
	{OID: OIDDate, Name: "date", SQLName: `date`, Len: 4, ByVal: true, Category: 'D', Type: 'b', ArrayOID: 1182, ElemOID: 0, Kind: schema.KindDate},
	{OID: OIDTime, Name: "time", SQLName: `time without time zone`, Len: 8, ByVal: true, Category: 'D', Type: 'b', ArrayOID: 1183, ElemOID: 0, Kind: schema.KindTime},
	{OID: OIDTimestamp, Name: "timestamp", SQLName: `timestamp without time zone`, Len: 8, ByVal: true, Category: 'D', Type: 'b', ArrayOID: 1115, ElemOID: 0, Kind: schema.KindTimestamp},
	{OID: OIDTimestampArray, Name: "_timestamp", SQLName: `timestamp without time zone[]`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 0, ElemOID: 1114, Kind: schema.KindInvalid},
	{OID: OIDDateArray, Name: "_date", SQLName: `date[]`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 0, ElemOID: 1082, Kind: schema.KindInvalid},
	{OID: OIDTimeArray, Name: "_time", SQLName: `time without time zone[]`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 0, ElemOID: 1083, Kind: schema.KindInvalid},
	{OID: OIDTimestampTZ, Name: "timestamptz", SQLName: `timestamp with time zone`, Len: 8, ByVal: true, Category: 'D', Type: 'b', ArrayOID: 1185, ElemOID: 0, Kind: schema.KindTimestampTZ},
	{OID: OIDTimestampTZArray, Name: "_timestamptz", SQLName: `timestamp with time zone[]`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 0, ElemOID: 1184, Kind: schema.KindInvalid},
	{OID: OIDInterval, Name: "interval", SQLName: `interval`, Len: 16, ByVal: false, Category: 'T', Type: 'b', ArrayOID: 1187, ElemOID: 0, Kind: schema.KindInterval},
	{OID: OIDIntervalArray, Name: "_interval", SQLName: `interval[]`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 0, ElemOID: 1186, Kind: schema.KindInvalid},
	{OID: OIDNumericArray, Name: "_numeric", SQLName: `numeric[]`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 0, ElemOID: 1700, Kind: schema.KindInvalid},
	{OID: OIDCStringArray, Name: "_cstring", SQLName: `cstring[]`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 0, ElemOID: 2275, Kind: schema.KindInvalid},
	{OID: OIDTimeTZ, Name: "timetz", SQLName: `time with time zone`, Len: 12, ByVal: false, Category: 'D', Type: 'b', ArrayOID: 1270, ElemOID: 0, Kind: schema.KindInvalid},
	{OID: OIDTimeTZArray, Name: "_timetz", SQLName: `time with time zone[]`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 0, ElemOID: 1266, Kind: schema.KindInvalid},
	{OID: OIDBit, Name: "bit", SQLName: `bit`, Len: -1, ByVal: false, Category: 'V', Type: 'b', ArrayOID: 1561, ElemOID: 0, Kind: schema.KindInvalid},
	{OID: OIDBitArray, Name: "_bit", SQLName: `bit[]`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 0, ElemOID: 1560, Kind: schema.KindInvalid},
	{OID: OIDVarbit, Name: "varbit", SQLName: `bit varying`, Len: -1, ByVal: false, Category: 'V', Type: 'b', ArrayOID: 1563, ElemOID: 0, Kind: schema.KindInvalid},
	{OID: OIDVarbitArray, Name: "_varbit", SQLName: `bit varying[]`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 0, ElemOID: 1562, Kind: schema.KindInvalid},
	{OID: OIDNumeric, Name: "numeric", SQLName: `numeric`, Len: -1, ByVal: false, Category: 'N', Type: 'b', ArrayOID: 1231, ElemOID: 0, Kind: schema.KindDecimal},
	{OID: OIDRegProcedure, Name: "regprocedure", SQLName: `regprocedure`, Len: 4, ByVal: true, Category: 'N', Type: 'b', ArrayOID: 2207, ElemOID: 0, Kind: schema.KindInvalid},
	{OID: OIDRegOper, Name: "regoper", SQLName: `regoper`, Len: 4, ByVal: true, Category: 'N', Type: 'b', ArrayOID: 2208, ElemOID: 0, Kind: schema.KindInvalid},
	{OID: OIDRegClass, Name: "regclass", SQLName: `regclass`, Len: 4, ByVal: true, Category: 'N', Type: 'b', ArrayOID: 2210, ElemOID: 0, Kind: schema.KindInvalid},
	{OID: OIDRegType, Name: "regtype", SQLName: `regtype`, Len: 4, ByVal: true, Category: 'N', Type: 'b', ArrayOID: 2211, ElemOID: 0, Kind: schema.KindInvalid},
	{OID: OIDRegProcedureArray, Name: "_regprocedure", SQLName: `regprocedure[]`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 0, ElemOID: 2202, Kind: schema.KindInvalid},
	{OID: OIDRegOperArray, Name: "_regoper", SQLName: `regoper[]`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 0, ElemOID: 2203, Kind: schema.KindInvalid},
	{OID: OIDRegClassArray, Name: "_regclass", SQLName: `regclass[]`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 0, ElemOID: 2205, Kind: schema.KindInvalid},
	{OID: OIDRegTypeArray, Name: "_regtype", SQLName: `regtype[]`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 0, ElemOID: 2206, Kind: schema.KindInvalid},
	{OID: OIDRecord, Name: "record", SQLName: `record`, Len: -1, ByVal: false, Category: 'P', Type: 'p', ArrayOID: 2287, ElemOID: 0, Kind: schema.KindInvalid},
	{OID: OIDCString, Name: "cstring", SQLName: `cstring`, Len: -2, ByVal: false, Category: 'P', Type: 'p', ArrayOID: 1263, ElemOID: 0, Kind: schema.KindInvalid},
	{OID: OIDAny, Name: "any", SQLName: `"any"`, Len: 4, ByVal: true, Category: 'P', Type: 'p', ArrayOID: 0, ElemOID: 0, Kind: schema.KindInvalid},
	{OID: OIDAnyArray, Name: "anyarray", SQLName: `anyarray`, Len: -1, ByVal: false, Category: 'P', Type: 'p', ArrayOID: 0, ElemOID: 0, Kind: schema.KindInvalid},
	{OID: OIDVoid, Name: "void", SQLName: `void`, Len: 4, ByVal: true, Category: 'P', Type: 'p', ArrayOID: 0, ElemOID: 0, Kind: schema.KindInvalid},
	{OID: OIDTrigger, Name: "trigger", SQLName: `trigger`, Len: 4, ByVal: true, Category: 'P', Type: 'p', ArrayOID: 0, ElemOID: 0, Kind: schema.KindInvalid},
	{OID: OIDAnyElement, Name: "anyelement", SQLName: `anyelement`, Len: 4, ByVal: true, Category: 'P', Type: 'p', ArrayOID: 0, ElemOID: 0, Kind: schema.KindInvalid},
	{OID: OIDRecordArray, Name: "_record", SQLName: `record[]`, Len: -1, ByVal: false, Category: 'P', Type: 'p', ArrayOID: 0, ElemOID: 2249, Kind: schema.KindInvalid},
	{OID: OIDUUID, Name: "uuid", SQLName: `uuid`, Len: 16, ByVal: false, Category: 'U', Type: 'b', ArrayOID: 2951, ElemOID: 0, Kind: schema.KindUUID},
	{OID: OIDUUIDArray, Name: "_uuid", SQLName: `uuid[]`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 0, ElemOID: 2950, Kind: schema.KindInvalid},
	{OID: OIDPgLSN, Name: "pg_lsn", SQLName: `pg_lsn`, Len: 8, ByVal: true, Category: 'U', Type: 'b', ArrayOID: 3221, ElemOID: 0, Kind: schema.KindInvalid},
	{OID: OIDPgLSNArray, Name: "_pg_lsn", SQLName: `pg_lsn[]`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 0, ElemOID: 3220, Kind: schema.KindInvalid},
	{OID: OIDJSONB, Name: "jsonb", SQLName: `jsonb`, Len: -1, ByVal: false, Category: 'U', Type: 'b', ArrayOID: 3807, ElemOID: 0, Kind: schema.KindJSON},
	{OID: OIDJSONBArray, Name: "_jsonb", SQLName: `jsonb[]`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 0, ElemOID: 3802, Kind: schema.KindInvalid},
	{OID: OIDJSONPath, Name: "jsonpath", SQLName: `jsonpath`, Len: -1, ByVal: false, Category: 'U', Type: 'b', ArrayOID: 4073, ElemOID: 0, Kind: schema.KindInvalid},
	{OID: OIDJSONPathArray, Name: "_jsonpath", SQLName: `jsonpath[]`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 0, ElemOID: 4072, Kind: schema.KindInvalid},
	{OID: OIDRegNamespace, Name: "regnamespace", SQLName: `regnamespace`, Len: 4, ByVal: true, Category: 'N', Type: 'b', ArrayOID: 4090, ElemOID: 0, Kind: schema.KindInvalid},
	{OID: OIDRegNamespaceArray, Name: "_regnamespace", SQLName: `regnamespace[]`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 0, ElemOID: 4089, Kind: schema.KindInvalid},
	{OID: OIDRegRole, Name: "regrole", SQLName: `regrole`, Len: 4, ByVal: true, Category: 'N', Type: 'b', ArrayOID: 4097, ElemOID: 0, Kind: schema.KindInvalid},
	{OID: OIDRegRoleArray, Name: "_regrole", SQLName: `regrole[]`, Len: -1, ByVal: false, Category: 'A', Type: 'b', ArrayOID: 0, ElemOID: 4096, Kind: schema.KindInvalid},
	{OID: OIDXID8, Name: "xid8", SQLName: `xid8`, Len: 8, ByVal: true, Category: 'U', Type: 'b', ArrayOID: 271, ElemOID: 0, Kind: schema.KindInvalid},
}
