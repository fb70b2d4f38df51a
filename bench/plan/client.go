package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"
)

var client = &http.Client{Timeout: 30 * time.Second}

func get(path string, gzip bool) (int, http.Header, []byte, error) {
	return getFrom(*base, path, gzip)
}

// getFrom requests path from the API at baseURL.
func getFrom(baseURL, path string, gzip bool) (int, http.Header, []byte, error) {
	req, err := http.NewRequest("GET", baseURL+path, nil)
	if err != nil {
		return 0, nil, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+*key)
	if gzip {
		req.Header.Set("Accept-Encoding", "gzip")
	} else {
		req.Header.Set("Accept-Encoding", "identity")
	}
	resp, err := client.Transport.(*http.Transport).RoundTrip(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, body, err
}

func getJSON(path string, v any) []byte {
	code, _, body, err := get(path, false)
	if err != nil {
		fail(fmt.Errorf("GET %s: %w", path, err))
	}
	if code != http.StatusOK {
		fail(fmt.Errorf("GET %s: %d %s", path, code, body))
	}
	if err := json.Unmarshal(body, v); err != nil {
		fail(fmt.Errorf("GET %s: %w", path, err))
	}
	return body
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "plan:", err)
	os.Exit(1)
}

type item struct {
	ID   string            `json:"id"`
	Slug string            `json:"slug"`
	Text map[string]string `json:"text"`
}

type page struct {
	Data  []item `json:"data"`
	Total int    `json:"total"`
}
