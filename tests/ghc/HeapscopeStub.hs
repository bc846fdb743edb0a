{-# LANGUAGE ExistentialQuantification #-}
-- | The Haskell side of heapscope's test stub (tests/ghc/stub/): start the
-- server of the ghc-debug wire protocol, stop it when main ends, and
-- register the saved objects a client finds with SAVED_OBJECTS.
module HeapscopeStub (withHeapscopeStub, Saved (..), saveObjects) where

import Control.Exception (bracket_)
import Control.Monad (when)
import Foreign.C.Types (CInt (..), CLong (..))
import Foreign.Marshal.Array (withArrayLen)
import Foreign.Ptr (Ptr)
import Foreign.StablePtr (castStablePtrToPtr, newStablePtr)

foreign import ccall unsafe "heapscope_stub_start" c_start :: IO CInt
foreign import ccall unsafe "heapscope_stub_stop" c_stop :: IO ()
foreign import ccall unsafe "heapscope_stub_save" c_save :: Ptr (Ptr ()) -> CLong -> IO ()

-- | Runs the action with the stub listening; the socket file is removed
-- when the action ends, normally or by an exception.
withHeapscopeStub :: IO a -> IO a
withHeapscopeStub = bracket_ start c_stop
  where
    start = do
      r <- c_start
      when (r /= 0) $ ioError (userError "heapscope stub: cannot start")

-- | Any value, to be saved.
data Saved = forall a. Saved a

-- | Replaces the saved objects (at most 20). Each is kept alive by a
-- stable pointer that is never freed.
saveObjects :: [Saved] -> IO ()
saveObjects objects = do
  ptrs <- mapM (\(Saved x) -> castStablePtrToPtr <$> newStablePtr x) objects
  withArrayLen ptrs $ \n p -> c_save p (fromIntegral n)
