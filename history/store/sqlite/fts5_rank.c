/*
** recall_bm25(): FTS5's bm25() with each phrase's document frequency given as an argument, a
** frequency that leaves out the work column (RECALL_WORK_COLUMN).
**
**   recall_bm25(turns_fts, weight_1, ..., weight_nCol, rows_1, ..., rows_nPhrase [, keep])
**
** FTS5's own bm25() counts the rows holding each phrase of the MATCH before it scores the first
** row, by reading the phrase's whole posting list: ~13 ms per statement at a million turns for a
** word in 60% of them, paid again by every statement that names the word. The search keeps
** those counts (history/store/sqlite/fts_search.py) and hands them in. A count that is missing,
** NULL or below 1 is counted here: the rows holding the phrase in a column other than the
** work. Everything else is bm25()'s own arithmetic (sqlite/ext/fts5/fts5_aux.c): same k1, b,
** idf floor, column weights and row lengths (every column's tokens), so the scores are bm25()'s
** to the last bit where no row holds a phrase in its work alone, and history/ranking.py's
** where rows do.
**
** `keep`, the statement's LIMIT when it orders by this score: most of a row's cost is reading
** its length (a lookup in the docsize table, ~0.45 of ~0.6 us). Each column of a row is at
** least as long as its last hit's offset + 1, and bm25 falls as a row grows, so the score with
** that length is above the row's own; once `keep` rows have been scored exactly, a row whose
** bound is below the keep-th best of them cannot be among the best `keep`, and is given its
** bound, still below those, without its length being read.
**
** Built by `pip install -e .` (setup.py, optional: without a compiler the search falls back to
** bm25()) and loaded into each connection by history/store/sqlite/rank_extension.py.
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1

#include <math.h>
#include <string.h>

/* Columns whose last hit bounds the row's length from below (turns_fts has 5). */
#define RECALL_MAX_COLUMNS 16

/* turns_fts's work column (commands, failures, edited lines: history/store/sqlite/fts.py's
** TEXT_COLUMNS). Its hits add to a row's score with its weight, and its tokens to the row's
** length, but a phrase's count of rows leaves it out: a word common in code (`test`, `error`)
** would otherwise weigh less in what was asked too (bench/RESULTS.md). In a table of fewer
** columns every column counts, as in bm25(). */
#define RECALL_WORK_COLUMN 3

/* Per connection: how many rows the connection's last statement with recall_bm25 scored, which
** recall_scored() returns. A search walks a part's newest matches in a subquery (LIMIT window +
** 1) and asks afterwards whether the walk held them all, instead of counting the rows it kept in
** a materialized copy (a quarter of such a statement's time). */
typedef struct RecallConnection RecallConnection;
struct RecallConnection {
  sqlite3_int64 nScored;
};

typedef struct RankData RankData;
struct RankData {
  int nPhrase;
  double avgdl;
  double *aIDF;
  double *aFreq;
  int nKeep;   /* rows kept by the statement's LIMIT (0: score every row exactly) */
  int nBest;   /* exact scores held in aBest, a min-heap: aBest[0] is the lowest */
  double *aBest;
};

static void recallHeapPush(RankData *p, double score) {
  int i;
  if (p->nBest < p->nKeep) {
    i = p->nBest++;
    while (i > 0 && p->aBest[(i - 1) / 2] > score) {
      p->aBest[i] = p->aBest[(i - 1) / 2];
      i = (i - 1) / 2;
    }
    p->aBest[i] = score;
  } else if (score > p->aBest[0]) {
    i = 0;
    for (;;) {
      int c = 2 * i + 1;
      if (c >= p->nBest) break;
      if (c + 1 < p->nBest && p->aBest[c + 1] < p->aBest[c]) c++;
      if (p->aBest[c] >= score) break;
      p->aBest[i] = p->aBest[c];
      i = c;
    }
    p->aBest[i] = score;
  }
}

/* Whether the phrase's hits in the current row count it among the phrase's rows: any hit in a
** column other than the work. */
static int recallCounts(int nCol, int iCol) {
  return nCol <= RECALL_WORK_COLUMN || iCol != RECALL_WORK_COLUMN;
}

/* xQueryPhrase's callback: counts the row if it holds the phrase in a column that counts. */
static int recallCountRow(const Fts5ExtensionApi *pApi, Fts5Context *pFts, void *pUser) {
  int nCol = pApi->xColumnCount(pFts);
  Fts5PhraseIter iter;
  int ic = 0;
  int io = 0;
  int rc;
  if (nCol <= RECALL_WORK_COLUMN) {
    (*(sqlite3_int64 *)pUser)++;
    return SQLITE_OK;
  }
  rc = pApi->xPhraseFirst(pFts, 0, &iter, &ic, &io);
  for (; rc == SQLITE_OK && ic >= 0; pApi->xPhraseNext(pFts, &iter, &ic, &io)) {
    if (recallCounts(nCol, ic)) {
      (*(sqlite3_int64 *)pUser)++;
      break;
    }
  }
  return rc;
}

/* Per statement, once: the average row length and each phrase's idf; and the connection's
** count of rows scored starts again. */
static int recallRankData(const Fts5ExtensionApi *pApi, Fts5Context *pFts, int nVal,
                          sqlite3_value **apVal, RankData **ppData) {
  RankData *p = (RankData *)pApi->xGetAuxdata(pFts, 0);
  int rc = SQLITE_OK;
  if (p == 0) {
    RecallConnection *pConn = (RecallConnection *)pApi->xUserData(pFts);
    int nPhrase = pApi->xPhraseCount(pFts);
    int nCol = pApi->xColumnCount(pFts);
    sqlite3_int64 nRow = 0;
    sqlite3_int64 nToken = 0;
    sqlite3_int64 nByte;
    int nKeep = 0;
    int i;
    if (pConn != 0) pConn->nScored = 0;
    if (nCol + nPhrase < nVal && sqlite3_value_type(apVal[nCol + nPhrase]) == SQLITE_INTEGER) {
      sqlite3_int64 nArg = sqlite3_value_int64(apVal[nCol + nPhrase]);
      nKeep = (nArg > 0 && nArg <= 100000) ? (int)nArg : 0;
    }
    nByte = sizeof(RankData) + sizeof(double) * (2 * (nPhrase + 1) + nKeep);
    p = (RankData *)sqlite3_malloc64(nByte);
    if (p == 0) return SQLITE_NOMEM;
    memset(p, 0, nByte);
    p->nPhrase = nPhrase;
    p->aIDF = (double *)&p[1];
    p->aFreq = &p->aIDF[nPhrase + 1];
    p->aBest = &p->aFreq[nPhrase + 1];
    p->nKeep = nKeep;
    rc = pApi->xRowCount(pFts, &nRow);
    if (rc == SQLITE_OK) rc = pApi->xColumnTotalSize(pFts, -1, &nToken);
    if (rc == SQLITE_OK) p->avgdl = nRow > 0 ? (double)nToken / (double)nRow : 1.0;
    for (i = 0; rc == SQLITE_OK && i < nPhrase; i++) {
      sqlite3_int64 nHit = 0;
      int iArg = nCol + i;
      if (iArg < nVal && sqlite3_value_type(apVal[iArg]) == SQLITE_INTEGER) {
        nHit = sqlite3_value_int64(apVal[iArg]);
      }
      if (nHit < 1) {
        nHit = 0;
        rc = pApi->xQueryPhrase(pFts, i, (void *)&nHit, recallCountRow);
      }
      /* A count kept apart may be read after a writer added rows the row count had not: a
      ** word in more rows than there are is in every row (history/ranking.py's idf too). */
      if (nHit > nRow) nHit = nRow;
      if (rc == SQLITE_OK) {
        double idf = log(((double)nRow - (double)nHit + 0.5) / ((double)nHit + 0.5));
        p->aIDF[i] = idf <= 0.0 ? 1e-6 : idf;
      }
    }
    if (rc == SQLITE_OK) {
      rc = pApi->xSetAuxdata(pFts, (void *)p, sqlite3_free);
    } else {
      sqlite3_free(p);
    }
    if (rc != SQLITE_OK) p = 0;
  }
  *ppData = p;
  return rc;
}

static double recallScore(const RankData *p, double D) {
  const double k1 = 1.2;
  const double b = 0.75;
  double score = 0.0;
  int i;
  for (i = 0; i < p->nPhrase; i++) {
    double f = p->aFreq[i];
    score += p->aIDF[i] * ((f * (k1 + 1.0)) / (f + k1 * (1 - b + b * D / p->avgdl)));
  }
  return score;
}

static void recallBm25(const Fts5ExtensionApi *pApi, Fts5Context *pFts, sqlite3_context *pCtx,
                       int nVal, sqlite3_value **apVal) {
  RankData *pData = 0;
  double score = 0.0;
  int nInst = 0;
  int aEnd[RECALL_MAX_COLUMNS];
  int i;
  RecallConnection *pConn = (RecallConnection *)pApi->xUserData(pFts);
  int rc = recallRankData(pApi, pFts, nVal, apVal, &pData);
  if (pConn != 0) pConn->nScored++;
  if (rc == SQLITE_OK) {
    memset(pData->aFreq, 0, sizeof(double) * (pData->nPhrase + 1));
    rc = pApi->xInstCount(pFts, &nInst);
  }
  memset(aEnd, 0, sizeof(aEnd));
  for (i = 0; rc == SQLITE_OK && i < nInst; i++) {
    int ip = 0;
    int ic = 0;
    int io = 0;
    rc = pApi->xInst(pFts, i, &ip, &ic, &io);
    if (rc == SQLITE_OK && ip >= 0 && ip < pData->nPhrase) {
      double w = (nVal > ic) ? sqlite3_value_double(apVal[ic]) : 1.0;
      pData->aFreq[ip] += w;
    }
    if (rc == SQLITE_OK && ic >= 0 && ic < RECALL_MAX_COLUMNS && io >= aEnd[ic]) aEnd[ic] = io + 1;
  }
  if (rc == SQLITE_OK && pData->nKeep > 0 && pData->nBest == pData->nKeep) {
    /* Each column is at least as long as its last hit's offset + 1, and the row as long as
    ** its hits: no row that long or longer scores more than this. */
    double bound;
    sqlite3_int64 nLeast = 0;
    for (i = 0; i < RECALL_MAX_COLUMNS; i++) nLeast += aEnd[i];
    if (nLeast < nInst) nLeast = nInst;
    bound = recallScore(pData, (double)nLeast);
    if (bound < pData->aBest[0]) {
      sqlite3_result_double(pCtx, -1.0 * bound);
      return;
    }
  }
  if (rc == SQLITE_OK) {
    int nTok = 0;
    rc = pApi->xColumnSize(pFts, -1, &nTok);
    if (rc == SQLITE_OK) score = recallScore(pData, (double)nTok);
  }
  if (rc == SQLITE_OK && pData->nKeep > 0) recallHeapPush(pData, score);
  if (rc == SQLITE_OK) {
    sqlite3_result_double(pCtx, -1.0 * score);
  } else {
    sqlite3_result_error_code(pCtx, rc);
  }
}

/* recall_best_turns(turns_fts, depth, lengths, weight_1, ..., weight_nCol): the `depth` best
** rows of the MATCH's first phrase (one word) by that word's part of bm25 without its idf,
** f * (k1 + 1) / (f + k1 * (1 - b + b * length / avgdl)), f its column-weighted hits: what the
** lists of a common word's best turns are ordered by (history/store/sqlite/best_turns.py).
** Called on the statement's first row (the rest return NULL), it walks the word's rows in one
** pass (xQueryPhrase: no SQL step per row), and counts the rows that hold it outside their work
** (recall_bm25's count of the word). `lengths` is recall_lengths()'s blob: each row's
** length by rowid, read once for many words (looking one up in the docsize table is most of a
** row's cost); a row past its end is looked up. A blob of records of four 8-byte little-endian
** numbers: first (bound, rows counted, avgdl, 0), bound the depth-th best score (0 when every row
** is there); then (score, rowid, f, length) for each row kept, in no order. */
typedef struct BestTurn BestTurn;
struct BestTurn {
  double score;
  sqlite3_int64 rowid;
  double f;
  sqlite3_int64 nLength;
};

typedef struct BestTurns BestTurns;
struct BestTurns {
  RankData rank;
  int nVal;
  sqlite3_value **apVal;
  int nDepth;
  int nHeld;
  sqlite3_int64 nSeen;
  BestTurn *aHeap; /* a min-heap by (score, rowid) */
  const int *aLength;
  sqlite3_int64 nLength;
};

static int recallBestBelow(const BestTurn *a, const BestTurn *b) {
  return a->score < b->score || (a->score == b->score && a->rowid < b->rowid);
}

static void recallBestPush(BestTurns *p, const BestTurn *t) {
  int i;
  if (p->nHeld < p->nDepth) {
    i = p->nHeld++;
    while (i > 0 && recallBestBelow(t, &p->aHeap[(i - 1) / 2])) {
      p->aHeap[i] = p->aHeap[(i - 1) / 2];
      i = (i - 1) / 2;
    }
    p->aHeap[i] = *t;
  } else if (recallBestBelow(&p->aHeap[0], t)) {
    i = 0;
    for (;;) {
      int c = 2 * i + 1;
      if (c >= p->nHeld) break;
      if (c + 1 < p->nHeld && recallBestBelow(&p->aHeap[c + 1], &p->aHeap[c])) c++;
      if (!recallBestBelow(&p->aHeap[c], t)) break;
      p->aHeap[i] = p->aHeap[c];
      i = c;
    }
    p->aHeap[i] = *t;
  }
}

static int recallBestRow(const Fts5ExtensionApi *pApi, Fts5Context *pFts, void *pUser) {
  BestTurns *p = (BestTurns *)pUser;
  BestTurn t;
  Fts5PhraseIter iter;
  int ic = 0;
  int io = 0;
  /* The phrase's hits straight from its position list: no array of every phrase's hits. */
  int nCol = pApi->xColumnCount(pFts);
  int bCounts = 0;
  int rc = pApi->xPhraseFirst(pFts, 0, &iter, &ic, &io);
  t.f = 0.0;
  for (; rc == SQLITE_OK && ic >= 0; pApi->xPhraseNext(pFts, &iter, &ic, &io)) {
    t.f += (2 + ic < p->nVal) ? sqlite3_value_double(p->apVal[2 + ic]) : 1.0;
    if (recallCounts(nCol, ic)) bCounts = 1;
  }
  if (rc != SQLITE_OK) return rc;
  if (bCounts) p->nSeen++; /* the word's count of rows, as recall_bm25 counts it */
  if (t.f <= 0.0) return SQLITE_OK; /* only in a weightless column: no score */
  t.rowid = pApi->xRowid(pFts);
  if (t.rowid >= 0 && t.rowid < p->nLength && p->aLength[t.rowid] >= 0) {
    t.nLength = p->aLength[t.rowid];
  } else {
    int nTok = 0;
    rc = pApi->xColumnSize(pFts, -1, &nTok);
    if (rc != SQLITE_OK) return rc;
    t.nLength = nTok;
  }
  p->rank.aFreq[0] = t.f;
  t.score = recallScore(&p->rank, (double)t.nLength);
  recallBestPush(p, &t);
  return SQLITE_OK;
}

static void recallBestTurns(const Fts5ExtensionApi *pApi, Fts5Context *pFts,
                            sqlite3_context *pCtx, int nVal, sqlite3_value **apVal) {
  BestTurns best;
  sqlite3_int64 nRow = 0;
  sqlite3_int64 nToken = 0;
  double aIDF[1] = {1.0};
  double aFreq[1] = {0.0};
  BestTurn *aOut;
  int rc;
  if (pApi->xGetAuxdata(pFts, 0) != 0) {
    sqlite3_result_null(pCtx);
    return;
  }
  rc = pApi->xSetAuxdata(pFts, (void *)pCtx, 0);
  memset(&best, 0, sizeof(best));
  best.nVal = nVal;
  best.apVal = apVal;
  best.nDepth = nVal > 0 ? sqlite3_value_int(apVal[0]) : 0;
  if (best.nDepth < 1 || best.nDepth > 1000000) best.nDepth = 1;
  if (nVal > 1 && sqlite3_value_type(apVal[1]) == SQLITE_BLOB) {
    best.aLength = (const int *)sqlite3_value_blob(apVal[1]);
    best.nLength = sqlite3_value_bytes(apVal[1]) / (int)sizeof(int);
  }
  best.rank.nPhrase = 1;
  best.rank.aIDF = aIDF;
  best.rank.aFreq = aFreq;
  if (rc == SQLITE_OK) rc = pApi->xRowCount(pFts, &nRow);
  if (rc == SQLITE_OK) rc = pApi->xColumnTotalSize(pFts, -1, &nToken);
  best.rank.avgdl = nRow > 0 ? (double)nToken / (double)nRow : 1.0;
  aOut = (BestTurn *)sqlite3_malloc64(sizeof(BestTurn) * ((sqlite3_int64)best.nDepth + 1));
  if (aOut == 0) {
    sqlite3_result_error_nomem(pCtx);
    return;
  }
  best.aHeap = &aOut[1];
  if (rc == SQLITE_OK) rc = pApi->xQueryPhrase(pFts, 0, (void *)&best, recallBestRow);
  if (rc != SQLITE_OK) {
    sqlite3_free(aOut);
    sqlite3_result_error_code(pCtx, rc);
    return;
  }
  aOut[0].score = best.nHeld == best.nDepth ? best.aHeap[0].score : 0.0;
  aOut[0].rowid = best.nSeen;
  aOut[0].f = best.rank.avgdl;
  aOut[0].nLength = 0;
  sqlite3_result_blob(pCtx, (void *)aOut, (int)(sizeof(BestTurn) * (best.nHeld + 1)),
                      sqlite3_free);
}

/* recall_rows(turns_fts): how many rows hold the MATCH's first phrase in a column other than
** the work, as recall_bm25 counts a phrase it is not given (what the counts kept beside the
** index hold: history/store/sqlite/word_counts.py). Called on the statement's first row (the
** rest return NULL), it walks the phrase's rows in one pass. */
static void recallRows(const Fts5ExtensionApi *pApi, Fts5Context *pFts, sqlite3_context *pCtx,
                       int nVal, sqlite3_value **apVal) {
  sqlite3_int64 nHit = 0;
  int rc;
  (void)nVal;
  (void)apVal;
  if (pApi->xGetAuxdata(pFts, 0) != 0) {
    sqlite3_result_null(pCtx);
    return;
  }
  rc = pApi->xSetAuxdata(pFts, (void *)pCtx, 0);
  if (rc == SQLITE_OK) rc = pApi->xQueryPhrase(pFts, 0, (void *)&nHit, recallCountRow);
  if (rc == SQLITE_OK) {
    sqlite3_result_int64(pCtx, nHit);
  } else {
    sqlite3_result_error_code(pCtx, rc);
  }
}

/* recall_lengths(id, sz), an aggregate over the docsize table: each row's length (the sum of
** its columns' varints) at its rowid in a blob of native ints, -1 where there is no row. */
typedef struct Lengths Lengths;
struct Lengths {
  int *a;
  sqlite3_int64 n;
};

static void recallLengthsStep(sqlite3_context *pCtx, int nArg, sqlite3_value **apArg) {
  Lengths *p = (Lengths *)sqlite3_aggregate_context(pCtx, sizeof(Lengths));
  sqlite3_int64 id;
  const unsigned char *a;
  int nByte;
  int iOff = 0;
  sqlite3_int64 nTok = 0;
  if (p == 0 || nArg < 2) return;
  id = sqlite3_value_int64(apArg[0]);
  if (id < 0 || id > 100000000) return;
  if (id >= p->n) {
    sqlite3_int64 nNew = p->n ? p->n : 65536;
    sqlite3_int64 i;
    int *aNew;
    while (nNew <= id) nNew *= 2;
    aNew = (int *)sqlite3_realloc64(p->a, sizeof(int) * nNew);
    if (aNew == 0) {
      sqlite3_result_error_nomem(pCtx);
      return;
    }
    for (i = p->n; i < nNew; i++) aNew[i] = -1;
    p->a = aNew;
    p->n = nNew;
  }
  a = (const unsigned char *)sqlite3_value_blob(apArg[1]);
  nByte = sqlite3_value_bytes(apArg[1]);
  while (iOff < nByte) {
    /* SQLite's varint: big-endian groups of 7 bits, the high bit set but on the last. */
    sqlite3_int64 v = 0;
    while (iOff < nByte) {
      unsigned char c = a[iOff++];
      v = (v << 7) | (c & 0x7f);
      if ((c & 0x80) == 0) break;
    }
    nTok += v;
  }
  p->a[id] = (int)nTok;
}

static void recallLengthsFinal(sqlite3_context *pCtx) {
  Lengths *p = (Lengths *)sqlite3_aggregate_context(pCtx, 0);
  if (p == 0 || p->a == 0) {
    sqlite3_result_zeroblob(pCtx, 0);
    return;
  }
  sqlite3_result_blob64(pCtx, (void *)p->a, sizeof(int) * p->n, sqlite3_free);
  p->a = 0;
}

/* recall_phrases(turns_fts): which phrases of the MATCH the row holds, bit i for phrase i (the
** first 62): the query words a row can earn the exact-form bonus for. */
static void recallPhrases(const Fts5ExtensionApi *pApi, Fts5Context *pFts, sqlite3_context *pCtx,
                          int nVal, sqlite3_value **apVal) {
  sqlite3_int64 mask = 0;
  int nInst = 0;
  int i;
  int rc = pApi->xInstCount(pFts, &nInst);
  (void)nVal;
  (void)apVal;
  for (i = 0; rc == SQLITE_OK && i < nInst; i++) {
    int ip = 0;
    int ic = 0;
    int io = 0;
    rc = pApi->xInst(pFts, i, &ip, &ic, &io);
    if (rc == SQLITE_OK && ip >= 0 && ip < 62) mask |= ((sqlite3_int64)1) << ip;
  }
  if (rc == SQLITE_OK) {
    sqlite3_result_int64(pCtx, mask);
  } else {
    sqlite3_result_error_code(pCtx, rc);
  }
}


/*
** recall_index_text(text): what FTS5 indexes for a text column, as history.query.index_text
** makes it: the text itself, each run of CJK characters written as its overlapping character
** pairs (a lone character stays itself), with a space either side. Registered over the Python
** function of the same name: a forget's delete trigger and every insert call it for each text
** column, and the Python call (the text decoded and encoded again) was a third of a delete.
** Bytes that are not valid UTF-8 are copied as they are; a value that is not text is returned.
*/
static int recallIsCjk(unsigned int c) {
  return (c >= 0x1100 && c <= 0x11FF) || (c >= 0x3005 && c <= 0x3007) ||
         (c >= 0x3040 && c <= 0x30FF) || (c >= 0x3130 && c <= 0x318F) ||
         (c >= 0x31F0 && c <= 0x31FF) || (c >= 0x3400 && c <= 0x4DBF) ||
         (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0xA960 && c <= 0xA97F) ||
         (c >= 0xAC00 && c <= 0xD7FF) || (c >= 0xF900 && c <= 0xFAFF) ||
         (c >= 0xFF66 && c <= 0xFF9F) || (c >= 0x20000 && c <= 0x3FFFF);
}

/* The code point at z[i] (n bytes in all) and its length in bytes; an invalid byte is itself,
** one byte long, and never CJK. */
static int recallCodePoint(const unsigned char *z, int i, int n, unsigned int *pc) {
  unsigned int c = z[i];
  int len, k;
  if (c < 0x80) { *pc = c; return 1; }
  if (c >= 0xF0 && c < 0xF8) { len = 4; c &= 0x07; }
  else if (c >= 0xE0) { len = (c < 0xF0) ? 3 : 1; c &= 0x0F; }
  else if (c >= 0xC0) { len = 2; c &= 0x1F; }
  else len = 1;
  if (len == 1 || i + len > n) { *pc = 0xFFFFFFFF; return 1; }
  for (k = 1; k < len; k++) {
    if ((z[i + k] & 0xC0) != 0x80) { *pc = 0xFFFFFFFF; return 1; }
    c = (c << 6) | (z[i + k] & 0x3F);
  }
  *pc = c;
  return len;
}

static void recallIndexText(sqlite3_context *pCtx, int nArg, sqlite3_value **apArg) {
  const unsigned char *z;
  unsigned char *out;
  int n, i, o, found = 0;
  (void)nArg;
  if (sqlite3_value_type(apArg[0]) != SQLITE_TEXT) {
    sqlite3_result_value(pCtx, apArg[0]);
    return;
  }
  z = sqlite3_value_text(apArg[0]);
  n = sqlite3_value_bytes(apArg[0]);
  if (z == 0) {
    sqlite3_result_error_nomem(pCtx);
    return;
  }
  /* The first CJK code point, U+1100, is E1 84 80 in UTF-8: text without a byte from E1 up
  ** holds none, and is indexed as it is (the usual case). */
  for (i = 0; i < n && !found; i++) found = z[i] >= 0xE1;
  if (!found) {
    sqlite3_result_value(pCtx, apArg[0]);
    return;
  }
  /* A run of r characters becomes at most 2r-1 characters and r+1 spaces: 3x the bytes. */
  out = sqlite3_malloc64((sqlite3_uint64)n * 3 + 2);
  if (out == 0) {
    sqlite3_result_error_nomem(pCtx);
    return;
  }
  o = 0;
  i = 0;
  while (i < n) {
    unsigned int c;
    int len = recallCodePoint(z, i, n, &c);
    if (!recallIsCjk(c)) {
      memcpy(out + o, z + i, len);
      o += len;
      i += len;
      continue;
    }
    {
      int start = i, prev = i, count = 0;
      out[o++] = ' ';
      while (i < n) {
        len = recallCodePoint(z, i, n, &c);
        if (!recallIsCjk(c)) break;
        if (count >= 1) {
          /* the pair (the previous character, this one); a space between two pairs */
          if (count >= 2) out[o++] = ' ';
          memcpy(out + o, z + prev, i + len - prev);
          o += i + len - prev;
        }
        prev = i;
        i += len;
        count++;
      }
      if (count == 1) {  /* a lone character stays itself */
        memcpy(out + o, z + start, i - start);
        o += i - start;
      }
      out[o++] = ' ';
    }
  }
  sqlite3_result_text(pCtx, (const char *)out, o, sqlite3_free);
}

static void recallScored(sqlite3_context *pCtx, int nArg, sqlite3_value **apArg) {
  const RecallConnection *pConn = (const RecallConnection *)sqlite3_user_data(pCtx);
  (void)nArg;
  (void)apArg;
  sqlite3_result_int64(pCtx, pConn->nScored);
}

static fts5_api *recallFts5Api(sqlite3 *db) {
  fts5_api *pApi = 0;
  sqlite3_stmt *pStmt = 0;
  if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &pStmt, 0) == SQLITE_OK) {
    sqlite3_bind_pointer(pStmt, 1, (void *)&pApi, "fts5_api_ptr", 0);
    sqlite3_step(pStmt);
  }
  sqlite3_finalize(pStmt);
  return pApi;
}

#ifdef _WIN32
__declspec(dllexport)
#endif
int sqlite3_recallrank_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi) {
  fts5_api *pFts5;
  RecallConnection *pConn;
  int rc;
  SQLITE_EXTENSION_INIT2(pApi);
  pFts5 = recallFts5Api(db);
  if (pFts5 == 0 || pFts5->iVersion < 2) {
    *pzErrMsg = sqlite3_mprintf("recall_bm25 needs FTS5");
    return SQLITE_ERROR;
  }
  pConn = (RecallConnection *)sqlite3_malloc(sizeof(RecallConnection));
  if (pConn == 0) return SQLITE_NOMEM;
  pConn->nScored = 0;
  /* FTS5 frees pConn when the connection closes; recall_scored() is not called after that. */
  rc = pFts5->xCreateFunction(pFts5, "recall_bm25", (void *)pConn, recallBm25, sqlite3_free);
  if (rc != SQLITE_OK) {
    sqlite3_free(pConn);
    return rc;
  }
  rc = sqlite3_create_function(db, "recall_scored", 0, SQLITE_UTF8, (void *)pConn, recallScored,
                               0, 0);
  if (rc == SQLITE_OK) rc = pFts5->xCreateFunction(pFts5, "recall_phrases", 0, recallPhrases, 0);
  if (rc == SQLITE_OK) {
    rc = pFts5->xCreateFunction(pFts5, "recall_best_turns", 0, recallBestTurns, 0);
  }
  if (rc == SQLITE_OK) rc = pFts5->xCreateFunction(pFts5, "recall_rows", 0, recallRows, 0);
  if (rc == SQLITE_OK) {
    rc = sqlite3_create_function(db, "recall_lengths", 2, SQLITE_UTF8, 0, 0, recallLengthsStep,
                                 recallLengthsFinal);
  }
  if (rc == SQLITE_OK) {
    rc = sqlite3_create_function(db, "recall_index_text", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                                 0, recallIndexText, 0, 0);
  }
  return rc;
}
