import java.sql.*;
import java.io.StringReader;
import java.math.BigDecimal;
import java.util.*;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;

// JdbcCheck exercises pgjdbc against a server and prints one line per fact
// ("section: values"), so the Go test can compare bsdb-pg's output with
// PostgreSQL's and assert values. Usage: java JdbcCheck <jdbc-url> <part>
// where part is "meta" (DatabaseMetaData), "dml" (statements) or "portal"
// (setFetchSize).
public class JdbcCheck {
    static void dump(String label, ResultSet rs, String... cols) throws SQLException {
        while (rs.next()) {
            StringBuilder b = new StringBuilder(label).append(":");
            for (String c : cols) b.append(" ").append(c).append("=").append(rs.getString(c));
            System.out.println(b);
        }
        rs.close();
    }

    public static void main(String[] args) throws Exception {
        try (Connection c = DriverManager.getConnection(args[0])) {
            if (args[1].equals("meta")) meta(c);
            else if (args[1].equals("portal")) portal(c);
            else dml(c);
        }
    }

    static void meta(Connection c) throws SQLException {
        DatabaseMetaData md = c.getMetaData();
        System.out.println("product: " + md.getDatabaseProductName());
        dump("tables", md.getTables(null, null, "%", new String[]{"TABLE"}), "TABLE_SCHEM", "TABLE_NAME", "TABLE_TYPE", "REMARKS");
        dump("columns", md.getColumns(null, "public", "t", "%"), "COLUMN_NAME", "DATA_TYPE", "TYPE_NAME", "COLUMN_SIZE",
             "DECIMAL_DIGITS", "NULLABLE", "COLUMN_DEF", "ORDINAL_POSITION", "IS_NULLABLE", "IS_AUTOINCREMENT");
        dump("columns", md.getColumns(null, "public", "items", "%"), "COLUMN_NAME", "DATA_TYPE", "TYPE_NAME", "COLUMN_SIZE",
             "DECIMAL_DIGITS", "NULLABLE");
        dump("pk", md.getPrimaryKeys(null, "public", "t"), "TABLE_NAME", "COLUMN_NAME", "KEY_SEQ", "PK_NAME");
        dump("pk", md.getPrimaryKeys(null, "s2", "other"), "TABLE_NAME", "COLUMN_NAME", "KEY_SEQ", "PK_NAME");
        dump("schemas", md.getSchemas(), "TABLE_SCHEM");
        dump("catalogs", md.getCatalogs(), "TABLE_CAT");
        dump("functions", md.getFunctions(null, "pg_catalog", "abs"), "FUNCTION_SCHEM", "FUNCTION_NAME", "REMARKS",
             "FUNCTION_TYPE", "SPECIFIC_NAME");
        dump("functions", md.getFunctions(null, "pg_catalog", "generate_series"), "FUNCTION_NAME", "REMARKS",
             "FUNCTION_TYPE", "SPECIFIC_NAME");
        dump("functions", md.getFunctions(null, "public", "%"), "FUNCTION_NAME");
        dump("procedures", md.getProcedures(null, "pg_catalog", "upper"), "PROCEDURE_SCHEM", "PROCEDURE_NAME", "REMARKS",
             "PROCEDURE_TYPE", "SPECIFIC_NAME");
        dump("functioncolumns", md.getFunctionColumns(null, "pg_catalog", "length", "%"), "FUNCTION_NAME", "COLUMN_NAME",
             "COLUMN_TYPE", "DATA_TYPE", "TYPE_NAME", "ORDINAL_POSITION", "SPECIFIC_NAME");
        ResultSet ti = md.getTypeInfo();
        Set<String> want = new HashSet<>(Arrays.asList("int4", "int8", "varchar", "text", "numeric", "bool", "timestamptz", "uuid", "jsonb"));
        while (ti.next()) {
            String n = ti.getString("TYPE_NAME");
            if (want.remove(n)) System.out.println("typeinfo: " + n + " DATA_TYPE=" + ti.getInt("DATA_TYPE"));
        }
        System.out.println("typeinfo missing: " + new TreeSet<>(want));
    }

    // setFetchSize with autocommit off: the driver reads through a named
    // portal, 2 rows per Execute (PortalSuspended in between).
    static void portal(Connection c) throws SQLException {
        c.setAutoCommit(false);
        try (Statement st = c.createStatement()) {
            st.setFetchSize(2);
            ResultSet rs = st.executeQuery("SELECT id FROM t ORDER BY id");
            StringBuilder ids = new StringBuilder();
            while (rs.next()) ids.append(rs.getInt(1)).append(",");
            System.out.println("fetch: " + ids);
            c.commit();
        }
    }

    static void dml(Connection c) throws Exception {
        // Prepared statement with every common type and NULL; prepareThreshold=1 in
        // the URL makes the second execution use a named server-side statement.
        String ins = "INSERT INTO items (id, label, flag, d, ts, tstz, f8, f4, i2, c, b, u, j) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::uuid, ?::jsonb)";
        try (PreparedStatement ps = c.prepareStatement(ins)) {
            for (int i = 1; i <= 3; i++) {
                ps.setLong(1, i);
                ps.setString(2, "label " + i);
                ps.setBoolean(3, i % 2 == 0);
                // setDate sends "2024-02-2N +00" (a date with a zone) untyped;
                // LocalDate goes as a typed date: both must work.
                if (i == 2) {
                    ps.setObject(4, java.time.LocalDate.parse("2024-02-2" + i));
                } else {
                    ps.setDate(4, java.sql.Date.valueOf("2024-02-2" + i));
                }
                ps.setTimestamp(5, Timestamp.valueOf("2024-02-29 12:34:56.789"));
                ps.setTimestamp(6, Timestamp.valueOf("2024-02-29 12:34:56"));
                ps.setDouble(7, 1.5 * i);
                ps.setFloat(8, 0.25f);
                ps.setShort(9, (short) -i);
                ps.setString(10, "ab");
                ps.setBytes(11, new byte[]{0, 1, (byte) 255});
                ps.setString(12, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1" + i);
                ps.setString(13, "{\"k\": " + i + "}");
                ps.executeUpdate();
            }
            ps.setLong(1, 4);
            for (int k = 2; k <= 13; k++) ps.setNull(k, Types.NULL);
            ps.executeUpdate();
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT id, label, flag, d, f8, f4, i2, c, b, u, j FROM items WHERE id >= ? ORDER BY id")) {
            ps.setLong(1, 1);
            ResultSet rs = ps.executeQuery();
            while (rs.next()) {
                byte[] b = rs.getBytes("b");
                System.out.println("row: " + rs.getLong(1) + "|" + rs.getString(2) + "|" + rs.getObject(3) + "|" + rs.getDate(4) + "|"
                    + rs.getObject(5) + "|" + rs.getObject(6) + "|" + rs.getObject(7) + "|" + rs.getString(8) + "|"
                    + (b == null ? "null" : Arrays.toString(b)) + "|" + rs.getString(10) + "|" + rs.getString(11));
            }
        }
        // executeBatch
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO t (id, name, v) VALUES (?, ?, ?)")) {
            for (int i = 10; i < 13; i++) {
                ps.setInt(1, i);
                ps.setString(2, "b" + i);
                ps.setBigDecimal(3, new BigDecimal(i + ".25"));
                ps.addBatch();
            }
            System.out.println("batch: " + Arrays.toString(ps.executeBatch()));
        }
        // Transactions: rollback discards, commit keeps.
        c.setAutoCommit(false);
        try (Statement st = c.createStatement()) {
            st.executeUpdate("INSERT INTO t VALUES (20, 'rolled back', 0)");
            c.rollback();
            st.executeUpdate("INSERT INTO t VALUES (21, 'committed', 0)");
            c.commit();
        }
        c.setAutoCommit(true);
        // COPY FROM STDIN through CopyManager.
        CopyManager cm = c.unwrap(PGConnection.class).getCopyAPI();
        long n = cm.copyIn("COPY t (id, name, v) FROM STDIN", new StringReader("30\tcopied\t3.5\n31\tc31\t\\N\n"));
        System.out.println("copyin: " + n);
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT count(*), sum(id) FROM t")) {
            rs.next();
            System.out.println("t: count=" + rs.getLong(1) + " sum=" + rs.getLong(2));
        }
    }
}
