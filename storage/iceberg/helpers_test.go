package iceberg_test

import ice "github.com/apache/iceberg-go"

func idGreaterThan(col string, v int64) ice.BooleanExpression {
	return ice.GreaterThan(ice.Reference(col), v)
}
