import java.sql.*;

/** pgjdbc's autosave (a SAVEPOINT before each statement of a transaction,
 *  ROLLBACK TO it after a failure) and the Savepoint API.
 *  Usage: java JdbcSavepoint <jdbc url> */
public class JdbcSavepoint {
    public static void main(String[] args) throws Exception {
        try (Connection c = DriverManager.getConnection(args[0])) {
            c.setAutoCommit(false);
            try (PreparedStatement ins = c.prepareStatement("INSERT INTO sv (id, note) VALUES (?, ?)")) {
                insert(ins, 1, "first");
                insert(ins, 2, "second");
                try (Statement st = c.createStatement()) {
                    st.executeQuery("SELECT 1/0").close();
                    System.out.println("1/0: no error");
                } catch (SQLException e) {
                    System.out.println("1/0: " + e.getSQLState());
                }
                try {
                    insert(ins, 3, "after the error");
                } catch (SQLException e) {
                    System.out.println("insert after the error: " + e.getSQLState());
                }
                Savepoint sp = null;
                try {
                    sp = c.setSavepoint("sp1");
                    insert(ins, 4, "undone");
                    c.rollback(sp);
                    insert(ins, 5, "kept");
                    c.releaseSavepoint(sp);
                } catch (SQLException e) {
                    System.out.println("savepoint api: " + e.getSQLState());
                }
                try {
                    c.commit();
                    System.out.println("commit: ok");
                } catch (SQLException e) {
                    System.out.println("commit: " + e.getSQLState());
                }
            }
            c.setAutoCommit(true);
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT id, note FROM sv ORDER BY id")) {
                while (rs.next()) {
                    System.out.println("row: " + rs.getInt(1) + "|" + rs.getString(2));
                }
            }
        }
    }

    static void insert(PreparedStatement ins, int id, String note) throws SQLException {
        ins.setInt(1, id);
        ins.setString(2, note);
        ins.executeUpdate();
    }
}
