{-# OPTIONS_GHC -O1 #-}
{-# LANGUAGE MagicHash #-}
-- | A stack frame too big for a small bitmap (more than 58 words): with
-- -O1, the 40 boxed and 30 unboxed values read before the wait are all
-- live across it, so the continuation of takeMVar is a RET_BIG frame whose
-- large bitmap mixes pointers and non-pointers. The marker it takes out of
-- its slot is then reachable only through that frame.
module BigFrame (BigFrameMarker (..), bigFrame) where

import Control.Concurrent.MVar (MVar, takeMVar)
import Control.Exception (evaluate)
import Data.IORef (IORef, readIORef, writeIORef)
import GHC.Exts (Int (I#), (+#))

data BigFrameMarker = BigFrameMarker Int


{-# NOINLINE bigFrame #-}
bigFrame :: IORef (Maybe BigFrameMarker) -> IORef Int -> MVar Int -> IO Int
bigFrame slot r wait = do
  -- taken out of its slot: from now on only this frame holds the marker
  Just m <- readIORef slot
  writeIORef slot Nothing
  a0 <- readIORef r
  a1 <- readIORef r
  a2 <- readIORef r
  a3 <- readIORef r
  a4 <- readIORef r
  a5 <- readIORef r
  a6 <- readIORef r
  a7 <- readIORef r
  a8 <- readIORef r
  a9 <- readIORef r
  a10 <- readIORef r
  a11 <- readIORef r
  a12 <- readIORef r
  a13 <- readIORef r
  a14 <- readIORef r
  a15 <- readIORef r
  a16 <- readIORef r
  a17 <- readIORef r
  a18 <- readIORef r
  a19 <- readIORef r
  a20 <- readIORef r
  a21 <- readIORef r
  a22 <- readIORef r
  a23 <- readIORef r
  a24 <- readIORef r
  a25 <- readIORef r
  a26 <- readIORef r
  a27 <- readIORef r
  a28 <- readIORef r
  a29 <- readIORef r
  a30 <- readIORef r
  a31 <- readIORef r
  a32 <- readIORef r
  a33 <- readIORef r
  a34 <- readIORef r
  a35 <- readIORef r
  a36 <- readIORef r
  a37 <- readIORef r
  a38 <- readIORef r
  a39 <- readIORef r
  I# u0 <- readIORef r
  I# u1 <- readIORef r
  I# u2 <- readIORef r
  I# u3 <- readIORef r
  I# u4 <- readIORef r
  I# u5 <- readIORef r
  I# u6 <- readIORef r
  I# u7 <- readIORef r
  I# u8 <- readIORef r
  I# u9 <- readIORef r
  I# u10 <- readIORef r
  I# u11 <- readIORef r
  I# u12 <- readIORef r
  I# u13 <- readIORef r
  I# u14 <- readIORef r
  I# u15 <- readIORef r
  I# u16 <- readIORef r
  I# u17 <- readIORef r
  I# u18 <- readIORef r
  I# u19 <- readIORef r
  I# u20 <- readIORef r
  I# u21 <- readIORef r
  I# u22 <- readIORef r
  I# u23 <- readIORef r
  I# u24 <- readIORef r
  I# u25 <- readIORef r
  I# u26 <- readIORef r
  I# u27 <- readIORef r
  I# u28 <- readIORef r
  I# u29 <- readIORef r
  v <- takeMVar wait -- the sum needs v: it cannot be computed before
  let BigFrameMarker k = m
  evaluate (v + k + I# (u0 +# u1 +# u2 +# u3 +# u4 +# u5 +# u6 +# u7 +# u8 +# u9 +# u10 +# u11 +#
      u12 +# u13 +# u14 +# u15 +# u16 +# u17 +# u18 +# u19 +# u20 +# u21 +# u22 +# u23 +# u24
      +# u25 +# u26 +# u27 +# u28 +# u29)
    + a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11 + a12 + a13 + a14 + a15 + a16
      + a17 + a18 + a19 + a20 + a21 + a22 + a23 + a24 + a25 + a26 + a27 + a28 + a29 + a30 + a31
      + a32 + a33 + a34 + a35 + a36 + a37 + a38 + a39)
