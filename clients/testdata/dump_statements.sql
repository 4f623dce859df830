-- The statements of pg_dump's scripts that bsdb-pg accepts for them
-- (ALTER TABLE ... ADD/DROP CONSTRAINT of a primary key, LOCK TABLE) and
-- their errors, one Query message per line, compared with PostgreSQL.
CREATE TABLE dk (id integer NOT NULL, b bigint NOT NULL, c text)
ALTER TABLE ONLY public.dk ADD CONSTRAINT dk_pkey PRIMARY KEY (id)
SELECT conname, contype, conkey FROM pg_constraint WHERE conrelid = 'dk'::regclass
SELECT indexrelid::regclass::text, indisprimary, indkey FROM pg_index WHERE indrelid = 'dk'::regclass
ALTER TABLE dk ADD PRIMARY KEY (b)
ALTER TABLE dk DROP CONSTRAINT nosuch
ALTER TABLE dk DROP CONSTRAINT IF EXISTS nosuch
ALTER TABLE IF EXISTS ONLY public.dk DROP CONSTRAINT IF EXISTS dk_pkey
SELECT count(*) FROM pg_constraint WHERE conrelid = 'dk'::regclass
ALTER TABLE dk ADD CONSTRAINT dk_two PRIMARY KEY (id, b)
SELECT conname, conkey FROM pg_constraint WHERE conrelid = 'dk'::regclass
SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'dk'::regclass
ALTER TABLE dk DROP CONSTRAINT dk_two
ALTER TABLE dk ADD PRIMARY KEY (nosuch)
ALTER TABLE dk ADD PRIMARY KEY (id, id)
ALTER TABLE nosuch ADD PRIMARY KEY (id)
ALTER TABLE IF EXISTS nosuch ADD PRIMARY KEY (id)
CREATE TABLE dk2 (id integer PRIMARY KEY)
ALTER TABLE dk2 ADD PRIMARY KEY (id)
ALTER TABLE dk2 DROP CONSTRAINT dk2_pkey
SELECT count(*) FROM pg_index WHERE indrelid = 'dk2'::regclass
ALTER TABLE dk2 ADD CONSTRAINT dk2_pkey PRIMARY KEY (id)
SELECT conname FROM pg_constraint WHERE conrelid = 'dk2'::regclass
LOCK TABLE dk IN ACCESS SHARE MODE
BEGIN
LOCK TABLE dk IN ACCESS SHARE MODE
LOCK TABLE public.dk, dk2
LOCK TABLE nosuch IN ACCESS SHARE MODE
ROLLBACK
INSERT INTO dk VALUES (1, 2, 'x'), (2, 3, NULL)
SELECT tableoid = 'dk'::regclass, tableoid::regclass::text, id FROM dk ORDER BY id
SELECT d.tableoid = 'dk'::regclass, count(*) FROM dk d GROUP BY 1
SELECT count(*) FROM dk a JOIN dk2 b ON a.id = b.id WHERE a.tableoid <> b.tableoid
SELECT c.tableoid::regclass::text, c.tableoid = 'pg_class'::regclass FROM pg_class c WHERE c.relname = 'dk'
SELECT n.tableoid, d.tableoid, t.tableoid FROM pg_namespace n, pg_database d, pg_type t WHERE n.nspname = 'public' AND d.datname = current_database() AND t.typname = 'int4'
SELECT count(*) FROM unnest('{1,2,3}'::pg_catalog.oid[]) AS src(x)
SELECT pg_catalog.pg_is_in_recovery()
SELECT acldefault('r', 10)::text[], acldefault('n', 10)::text[], acldefault('d', 10)::text[], acldefault('f', 10)::text[], acldefault('T', 10)::text[], acldefault('c', 10)::text[]
SELECT array_remove(ARRAY[1, 2, 1, NULL], 1), array_remove(ARRAY['a', NULL], NULL::text), array_remove(NULL::int[], 1)
SELECT oprcode::oid = 'int4pl'::regproc::oid FROM pg_operator WHERE oprname = '+' AND oprleft = 'int4'::regtype AND oprright = 'int4'::regtype
SELECT option_name, option_value FROM pg_options_to_table(ARRAY['a=1', 'b=x=y'])
SELECT count(*) FROM pg_init_privs WHERE classoid = 'pg_namespace'::regclass
