-- CreateTable
CREATE TABLE "ConcurrencyLimit" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "scope" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "maxConcurrent" INTEGER,
    "maxQueued" INTEGER,
    "queueTimeoutMs" INTEGER,
    "updatedAt" TIMESTAMP(3) NOT NULL
);

-- CreateIndex
CREATE UNIQUE INDEX "ConcurrencyLimit_scope_subject_key" ON "ConcurrencyLimit"("scope", "subject");
