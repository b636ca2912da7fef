/*
** recall_bm25(): FTS5's bm25() with each phrase's document frequency given as an argument.
**
**   recall_bm25(turns_fts, weight_1, ..., weight_nCol, rows_1, ..., rows_nPhrase [, keep])
**
** FTS5's own bm25() counts the rows holding each phrase of the MATCH before it scores the first
** row, by reading the phrase's whole posting list: ~13 ms per statement at a million turns for a
** word in 60% of them, paid again by every statement that names the word. The search keeps
** those counts (history/store/sqlite/fts_search.py) and hands them in. A count that is missing,
** NULL or below 1 is counted here as bm25() does. Everything else is bm25()'s own arithmetic
** (sqlite/ext/fts5/fts5_aux.c): same k1, b, idf floor and column weights, so the scores are
** bm25()'s to the last bit when the counts are the index's.
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

/* Columns whose last hit bounds the row's length from below (turns_fts has 4). */
#define RECALL_MAX_COLUMNS 16

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

static int recallCountRow(const Fts5ExtensionApi *pApi, Fts5Context *pFts, void *pUser) {
  (void)pApi;
  (void)pFts;
  (*(sqlite3_int64 *)pUser)++;
  return SQLITE_OK;
}

/* Per statement, once: the average row length and each phrase's idf. */
static int recallRankData(const Fts5ExtensionApi *pApi, Fts5Context *pFts, int nVal,
                          sqlite3_value **apVal, RankData **ppData) {
  RankData *p = (RankData *)pApi->xGetAuxdata(pFts, 0);
  int rc = SQLITE_OK;
  if (p == 0) {
    int nPhrase = pApi->xPhraseCount(pFts);
    int nCol = pApi->xColumnCount(pFts);
    sqlite3_int64 nRow = 0;
    sqlite3_int64 nToken = 0;
    sqlite3_int64 nByte;
    int nKeep = 0;
    int i;
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
  int rc = recallRankData(pApi, pFts, nVal, apVal, &pData);
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
  int rc;
  SQLITE_EXTENSION_INIT2(pApi);
  pFts5 = recallFts5Api(db);
  if (pFts5 == 0 || pFts5->iVersion < 2) {
    *pzErrMsg = sqlite3_mprintf("recall_bm25 needs FTS5");
    return SQLITE_ERROR;
  }
  rc = pFts5->xCreateFunction(pFts5, "recall_bm25", 0, recallBm25, 0);
  if (rc == SQLITE_OK) rc = pFts5->xCreateFunction(pFts5, "recall_phrases", 0, recallPhrases, 0);
  return rc;
}
