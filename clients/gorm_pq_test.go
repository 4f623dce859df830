package clients

import (
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/lib/pq"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/logger"
)

// TestLibPq: lib/pq's prepared statements, transactions (commit and
// rollback) and CopyIn.
func TestLibPq(t *testing.T) {
	s := startLoggingServer(t)
	db, err := sql.Open("postgres", s.url("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustExec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	mustExec("CREATE TABLE pq_t (id bigint NOT NULL, name text, amount numeric(10,2), at timestamptz)")
	at := time.Date(2024, 2, 29, 12, 0, 0, 0, time.UTC)
	mustExec("INSERT INTO pq_t VALUES ($1, $2, $3, $4)", 1, "one", "1.50", at)
	st, err := db.Prepare("SELECT name, amount, at FROM pq_t WHERE id = $1")
	if err != nil {
		t.Fatal(err)
	}
	var name, amount string
	var got time.Time
	if err := st.QueryRow(1).Scan(&name, &amount, &got); err != nil || name != "one" || amount != "1.50" || !got.Equal(at) {
		t.Errorf("prepared: %q %q %v %v", name, amount, got, err)
	}
	st.Close()

	tx, _ := db.Begin()
	if _, err := tx.Exec("INSERT INTO pq_t (id, name) VALUES ($1, $2)", 2, "rolled back"); err != nil {
		t.Fatal(err)
	}
	_ = tx.Rollback()
	tx, _ = db.Begin()
	cp, err := tx.Prepare(pq.CopyIn("pq_t", "id", "name"))
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range []string{"ten", "eleven"} {
		if _, err := cp.Exec(10+i, n); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := cp.Exec(); err != nil {
		t.Fatal(err)
	}
	cp.Close()
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	var n int
	var names string
	if err := db.QueryRow("SELECT count(*), string_agg(name, ',' ORDER BY id) FROM pq_t").Scan(&n, &names); err != nil || n != 3 || names != "one,ten,eleven" {
		t.Errorf("after rollback and CopyIn: %d %q %v", n, names, err)
	}
	var pe *pq.Error
	if _, err := db.Exec("SELECT nosuch FROM pq_t WHERE id = $1", 1); !errors.As(err, &pe) || pe.Code != "42703" {
		t.Errorf("error: %v", err)
	}
	checkServerErrors(t, s)
}

type gormItem struct {
	ID    int64  `gorm:"primaryKey;autoIncrement:false"`
	Name  string `gorm:"size:40;not null"`
	Price float64
}

func (gormItem) TableName() string { return "gorm_items" }

// TestGORM: GORM over pgx (its postgres driver): AutoMigrate (creating
// the table, then again over it: Migrator().ColumnTypes reads
// information_schema, constraint_column_usage too), Create (INSERT ...
// RETURNING in the extended protocol), First/Find with conditions,
// transactions, Save (UPDATE of every column), Updates, Delete.
func TestGORM(t *testing.T) {
	s := startLoggingServer(t)
	db, err := gorm.Open(postgres.Open(s.url("postgres")), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if err := db.AutoMigrate(&gormItem{}); err != nil {
			t.Fatalf("AutoMigrate #%d: %v", i+1, err)
		}
	}
	cts, err := db.Migrator().ColumnTypes(&gormItem{})
	var cols []string
	for _, c := range cts {
		pk, _ := c.PrimaryKey()
		null, _ := c.Nullable()
		cols = append(cols, fmt.Sprintf("%s %s pk=%v null=%v", c.Name(), c.DatabaseTypeName(), pk, null))
	}
	sort.Strings(cols)
	if got := strings.Join(cols, "; "); err != nil || got != "id int8 pk=true null=false; name varchar pk=false null=false; price numeric pk=false null=true" {
		t.Errorf("ColumnTypes: %s %v", got, err)
	}
	if err := db.Create(&gormItem{ID: 1, Name: "a", Price: 1.5}).Error; err != nil {
		t.Fatalf("Create: %v", err)
	}
	if err := db.Create([]gormItem{{ID: 2, Name: "b", Price: 2}, {ID: 3, Name: "c", Price: 3}}).Error; err != nil {
		t.Fatalf("Create batch: %v", err)
	}
	var first gormItem
	if err := db.First(&first, 2).Error; err != nil || first.Name != "b" {
		t.Errorf("First: %+v %v", first, err)
	}
	var found []gormItem
	if err := db.Where("price > ? AND name IN ?", 1.0, []string{"a", "c"}).Order("id").Find(&found).Error; err != nil || len(found) != 2 || found[1].ID != 3 {
		t.Errorf("Find: %+v %v", found, err)
	}
	err = db.Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(&gormItem{ID: 4, Name: "d"}).Error; err != nil {
			return err
		}
		return errors.New("roll back")
	})
	var n int64
	if db.Model(&gormItem{}).Count(&n); err == nil || n != 3 {
		t.Errorf("Transaction rollback: %v, %d rows", err, n)
	}
	if !db.Migrator().HasTable(&gormItem{}) {
		t.Errorf("HasTable: false")
	}
	// Save, Updates and Delete: UPDATE and DELETE with parameters.
	first.Name, first.Price = "b2", 20
	if err := db.Save(&first).Error; err != nil {
		t.Errorf("Save: %v", err)
	}
	if err := db.Model(&gormItem{}).Where("id = ?", 3).Updates(map[string]any{"price": 30.5}).Error; err != nil {
		t.Errorf("Updates: %v", err)
	}
	if res := db.Delete(&gormItem{}, 1); res.Error != nil || res.RowsAffected != 1 {
		t.Errorf("Delete: %v, %d rows", res.Error, res.RowsAffected)
	}
	err = db.Transaction(func(tx *gorm.DB) error {
		if err := tx.Model(&gormItem{}).Where("id = ?", 2).Update("name", "rolled back").Error; err != nil {
			return err
		}
		return errors.New("roll back")
	})
	var all []gormItem
	if err := db.Order("id").Find(&all).Error; err != nil || fmt.Sprint(all) != "[{2 b2 20} {3 c 30.5}]" {
		t.Errorf("after Save/Updates/Delete: %v %v", all, err)
	}
	checkServerErrors(t, s)
}

type gormAccount struct {
	ID      int64   `gorm:"primaryKey;autoIncrement:false"`
	Email   string  `gorm:"size:80;uniqueIndex"`
	Balance float64 `gorm:"check:balance >= 0"`
}

func (gormAccount) TableName() string { return "gorm_accounts" }

// TestGORMKeys: what GORM relies on of keys and constraints. AutoMigrate
// creates the unique index and the CHECK (and finds them again the second
// time); a Create that repeats the primary key or the unique email fails
// with 23505, one breaking the CHECK with 23514, and nothing is written;
// upserts (clause.OnConflict: DoNothing, DoUpdates with EXCLUDED, and
// Save of a new primary key, which GORM runs as ON CONFLICT DO UPDATE)
// insert or update as on PostgreSQL.
func TestGORMKeys(t *testing.T) {
	s := startLoggingServer(t)
	db, err := gorm.Open(postgres.Open(s.url("postgres")), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if err := db.AutoMigrate(&gormAccount{}); err != nil {
			t.Fatalf("AutoMigrate #%d: %v", i+1, err)
		}
	}
	if !db.Migrator().HasIndex(&gormAccount{}, "Email") {
		t.Errorf("HasIndex(Email): false")
	}
	if !db.Migrator().HasConstraint(&gormAccount{}, "chk_gorm_accounts_balance") {
		t.Errorf("HasConstraint(chk_gorm_accounts_balance): false")
	}
	if err := db.Create(&gormAccount{ID: 1, Email: "a@x", Balance: 10}).Error; err != nil {
		t.Fatalf("Create: %v", err)
	}
	code := func(err error) string {
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			return pe.Code + " " + pe.ConstraintName
		}
		return fmt.Sprint(err)
	}
	for _, c := range []struct {
		row  gormAccount
		want string
	}{
		{gormAccount{ID: 1, Email: "b@x"}, "23505 gorm_accounts_pkey"},
		{gormAccount{ID: 2, Email: "a@x"}, "23505 idx_gorm_accounts_email"},
		{gormAccount{ID: 2, Email: "b@x", Balance: -1}, "23514 chk_gorm_accounts_balance"},
	} {
		if got := code(db.Create(&c.row).Error); got != c.want {
			t.Errorf("Create(%+v): %s, want %s", c.row, got, c.want)
		}
	}
	if err := db.Clauses(clause.OnConflict{DoNothing: true}).Create(&gormAccount{ID: 1, Email: "c@x", Balance: 5}).Error; err != nil {
		t.Errorf("OnConflict DoNothing: %v", err)
	}
	if err := db.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "id"}}, DoUpdates: clause.AssignmentColumns([]string{"email", "balance"})}).
		Create([]gormAccount{{ID: 1, Email: "a2@x", Balance: 11}, {ID: 2, Email: "b@x", Balance: 2}}).Error; err != nil {
		t.Errorf("OnConflict DoUpdates: %v", err)
	}
	// Save of a primary key that does not exist: UPDATE, then INSERT ...
	// ON CONFLICT DO UPDATE SET every column.
	if err := db.Save(&gormAccount{ID: 3, Email: "c@x", Balance: 3}).Error; err != nil {
		t.Errorf("Save (new): %v", err)
	}
	if err := db.Save(&gormAccount{ID: 3, Email: "c3@x", Balance: 30}).Error; err != nil {
		t.Errorf("Save (existing): %v", err)
	}
	var all []gormAccount
	if err := db.Order("id").Find(&all).Error; err != nil || fmt.Sprint(all) != "[{1 a2@x 11} {2 b@x 2} {3 c3@x 30}]" {
		t.Errorf("rows: %v %v", all, err)
	}
	checkServerErrors(t, s)
}
