package objstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// S3Config configures an S3 (or S3-compatible) store.
type S3Config struct {
	Endpoint  string // e.g. http://127.0.0.1:7070; empty: AWS default resolution
	Region    string // default us-east-1
	Bucket    string
	Prefix    string // key prefix inside the bucket, without leading/trailing slash
	AccessKey string // empty: default credential chain
	SecretKey string
	PathStyle bool // path-style addressing (most S3-compatible servers)
}

// ParseURI parses "s3://bucket/prefix" into Bucket and Prefix.
func ParseURI(uri string) (S3Config, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return S3Config{}, fmt.Errorf("objstore: parse %q: %w", uri, err)
	}
	if u.Scheme != "s3" || u.Host == "" {
		return S3Config{}, fmt.Errorf("objstore: parse %q: want s3://bucket[/prefix]", uri)
	}
	return S3Config{Bucket: u.Host, Prefix: strings.Trim(u.Path, "/")}, nil
}

// S3 is a Store on an S3 bucket. Conditional writes use If-None-Match: * and
// If-Match: <etag>; the server's ETag is the Version.
type S3 struct {
	client *s3.Client
	bucket string
	prefix string // "" or "p/" (with trailing slash)
}

var _ Store = (*S3)(nil)

// NewS3 builds a client for cfg. It does not contact the server.
func NewS3(ctx context.Context, cfg S3Config) (*S3, error) {
	if cfg.Bucket == "" {
		return nil, errors.New("objstore: s3: empty bucket")
	}
	region := cfg.Region
	if region == "" {
		region = "us-east-1"
	}
	opts := []func(*config.LoadOptions) error{config.WithRegion(region)}
	if cfg.AccessKey != "" {
		opts = append(opts, config.WithCredentialsProvider(
			credentials.NewStaticCredentialsProvider(cfg.AccessKey, cfg.SecretKey, "")))
	}
	awsCfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("objstore: s3 config: %w", err)
	}
	client := s3.NewFromConfig(awsCfg, func(o *s3.Options) {
		if cfg.Endpoint != "" {
			o.BaseEndpoint = aws.String(cfg.Endpoint)
		}
		o.UsePathStyle = cfg.PathStyle
	})
	p := strings.Trim(cfg.Prefix, "/")
	if p != "" {
		p += "/"
	}
	return &S3{client: client, bucket: cfg.Bucket, prefix: p}, nil
}

// Client exposes the underlying client (for tests and bucket setup).
func (s *S3) Client() *s3.Client { return s.client }

// Bucket is the bucket name.
func (s *S3) Bucket() string { return s.bucket }

func (s *S3) full(key string) string { return s.prefix + key }

// URI implements Store.
func (s *S3) URI(key string) string {
	return "s3://" + s.bucket + "/" + strings.TrimSuffix(s.prefix+key, "/")
}

// Get implements Store.
func (s *S3) Get(ctx context.Context, key string) ([]byte, Version, error) {
	if err := ValidateKey(key); err != nil {
		return nil, "", opErr("get", key, err)
	}
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &s.bucket, Key: aws.String(s.full(key))})
	if err != nil {
		return nil, "", opErr("get", key, mapS3Err(err))
	}
	defer out.Body.Close()
	data, err := io.ReadAll(out.Body)
	if err != nil {
		return nil, "", opErr("get", key, err)
	}
	return data, Version(aws.ToString(out.ETag)), nil
}

// Put implements Store.
func (s *S3) Put(ctx context.Context, key string, data []byte) error {
	if err := ValidateKey(key); err != nil {
		return opErr("put", key, err)
	}
	_, err := s.client.PutObject(ctx, &s3.PutObjectInput{
		Bucket: &s.bucket, Key: aws.String(s.full(key)), Body: bytes.NewReader(data),
		ContentLength: aws.Int64(int64(len(data))),
	})
	if err != nil {
		return opErr("put", key, mapS3Err(err))
	}
	return nil
}

// PutFile implements Store (a single PutObject; objects up to the server's
// single-part limit, 5 GiB on AWS).
func (s *S3) PutFile(ctx context.Context, key string, localPath string) error {
	if err := ValidateKey(key); err != nil {
		return opErr("putfile", key, err)
	}
	f, err := os.Open(localPath)
	if err != nil {
		return opErr("putfile", key, mapFSErr(err))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return opErr("putfile", key, err)
	}
	_, err = s.client.PutObject(ctx, &s3.PutObjectInput{
		Bucket: &s.bucket, Key: aws.String(s.full(key)), Body: f, ContentLength: aws.Int64(fi.Size()),
	})
	if err != nil {
		return opErr("putfile", key, mapS3Err(err))
	}
	return nil
}

// PutIfAbsent implements Store with If-None-Match: *.
func (s *S3) PutIfAbsent(ctx context.Context, key string, data []byte) (Version, error) {
	if err := ValidateKey(key); err != nil {
		return "", opErr("putifabsent", key, err)
	}
	out, err := s.client.PutObject(ctx, &s3.PutObjectInput{
		Bucket: &s.bucket, Key: aws.String(s.full(key)), Body: bytes.NewReader(data),
		ContentLength: aws.Int64(int64(len(data))), IfNoneMatch: aws.String("*"),
	})
	if err != nil {
		err = mapS3Err(err)
		if errors.Is(err, ErrPrecondition) {
			// 412 on If-None-Match means the object exists; 409 means a
			// concurrent conditional write to the same key is in flight, so
			// the key is (being) taken: we lost either way.
			err = fmt.Errorf("%w: %w", ErrExists, err)
		}
		return "", opErr("putifabsent", key, err)
	}
	return Version(aws.ToString(out.ETag)), nil
}

// PutIfMatch implements Store with If-Match: <etag>.
func (s *S3) PutIfMatch(ctx context.Context, key string, data []byte, v Version) (Version, error) {
	if err := ValidateKey(key); err != nil {
		return "", opErr("putifmatch", key, err)
	}
	out, err := s.client.PutObject(ctx, &s3.PutObjectInput{
		Bucket: &s.bucket, Key: aws.String(s.full(key)), Body: bytes.NewReader(data),
		ContentLength: aws.Int64(int64(len(data))), IfMatch: aws.String(string(v)),
	})
	if err != nil {
		err = mapS3Err(err)
		if errors.Is(err, ErrNotFound) {
			// A conditional update of a missing object is a lost CAS.
			err = fmt.Errorf("%w: %w", ErrPrecondition, err)
		}
		return "", opErr("putifmatch", key, err)
	}
	return Version(aws.ToString(out.ETag)), nil
}

// Delete implements Store.
func (s *S3) Delete(ctx context.Context, key string) error {
	if err := ValidateKey(key); err != nil {
		return opErr("delete", key, err)
	}
	_, err := s.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &s.bucket, Key: aws.String(s.full(key))})
	if err != nil {
		err = mapS3Err(err)
		if errors.Is(err, ErrNotFound) {
			return nil
		}
		return opErr("delete", key, err)
	}
	return nil
}

// List implements Store.
func (s *S3) List(ctx context.Context, prefix string) ([]Info, error) {
	if err := validatePrefix(prefix); err != nil {
		return nil, opErr("list", prefix, err)
	}
	var out []Info
	p := s3.NewListObjectsV2Paginator(s.client, &s3.ListObjectsV2Input{
		Bucket: &s.bucket, Prefix: aws.String(s.full(prefix)),
	})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, opErr("list", prefix, mapS3Err(err))
		}
		for _, o := range page.Contents {
			k := strings.TrimPrefix(aws.ToString(o.Key), s.prefix)
			if strings.HasSuffix(k, "/") {
				continue // directory marker
			}
			out = append(out, Info{Key: k, Size: aws.ToInt64(o.Size)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

// mapS3Err maps S3 errors onto the sentinels: 404/NoSuchKey -> ErrNotFound,
// 412 PreconditionFailed and 409 ConditionalRequestConflict ->
// ErrPrecondition. The original error stays wrapped.
func mapS3Err(err error) error {
	var nsk *types.NoSuchKey
	var nf *types.NotFound
	if errors.As(err, &nsk) || errors.As(err, &nf) {
		return fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	var api smithy.APIError
	if errors.As(err, &api) {
		switch api.ErrorCode() {
		case "NoSuchKey", "NotFound":
			return fmt.Errorf("%w: %w", ErrNotFound, err)
		case "PreconditionFailed", "ConditionalRequestConflict":
			return fmt.Errorf("%w: %w", ErrPrecondition, err)
		case "NoSuchBucket":
			return err // a 404 that is a configuration error, not a missing key
		}
	}
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) {
		switch re.HTTPStatusCode() {
		case http.StatusNotFound:
			return fmt.Errorf("%w: %w", ErrNotFound, err)
		case http.StatusPreconditionFailed, http.StatusConflict:
			return fmt.Errorf("%w: %w", ErrPrecondition, err)
		}
	}
	return err
}
