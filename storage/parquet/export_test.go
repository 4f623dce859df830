package parquet

// Test helpers shared with the external test package.
var (
	EventsSchema  = eventsSchema
	EventsBatches = eventsBatches
)
