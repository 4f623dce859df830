package iceberg_test

import ice "github.com/apache/iceberg-go"

func iceberg_gt(col string, v int64) ice.BooleanExpression {
	return ice.GreaterThan(ice.Reference(col), v)
}
